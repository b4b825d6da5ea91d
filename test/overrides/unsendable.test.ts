import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { scenarios } from '../../scenarios/index.js'
import hostile, { HOSTILE_KINDS } from './hostile-scenario.js'

// Issue 43: what a user defines is checked when defined, and an answer that cannot be written
// still never stops an engine: a 500 naming why, marked and journaled as 500.

const LAYERS = '/api/layers'
const answer = (respond: Record<string, unknown>) => ({
  match: { method: 'GET', path: LAYERS },
  respond: { status: 200, ...respond },
})

const refusals: [string, unknown, RegExp][] = [
  [
    'a snowman in a header value',
    answer({ headers: { 'x-u': '\u2603' } }),
    /^respond\.headers\.x-u: must hold only tabs, spaces, visible ASCII/,
  ],
  [
    'a control character in a header value',
    answer({ headers: { 'x-u': 'a\u0001b' } }),
    /^respond\.headers\.x-u: must hold only/,
  ],
  ['U+2028 in a header value', answer({ headers: { 'x-u': 'a\u2028b' } }), /^respond\.headers\.x-u: must hold only/],
  ['DEL in a header value', answer({ headers: { 'x-u': 'a\u007fb' } }), /^respond\.headers\.x-u: must hold only/],
  [
    'a C1 control (NEL) in a header value',
    answer({ headers: { 'x-u': 'a\u0085b' } }),
    /^respond\.headers\.x-u: must hold only/,
  ],
  [
    'a snowman in a matched header',
    { match: { method: 'GET', path: LAYERS, headers: { 'x-u': '\u2603' } }, respond: { status: 200 } },
    /^match\.headers\.x-u: must hold only/,
  ],
  [
    'content-length',
    answer({ headers: { 'Content-Length': '3' }, body: { a: 1 } }),
    /^respond\.headers\.Content-Length: is written by the server/,
  ],
  [
    'transfer-encoding',
    answer({ headers: { 'transfer-encoding': 'chunked' } }),
    /^respond\.headers\.transfer-encoding: is written by the server/,
  ],
  [
    'connection',
    answer({ headers: { connection: 'close' } }),
    /^respond\.headers\.connection: is written by the server/,
  ],
  [
    'a body on a 204',
    answer({ status: 204, body: { a: 1 } }),
    /^respond\.body: must be left out for a 204, 205 or 304 answer/,
  ],
  [
    'a body on a 304',
    answer({ status: 304, body: 'x' }),
    /^respond\.body: must be left out for a 204, 205 or 304 answer/,
  ],
  [
    'a window that closed before now',
    { ...answer({}), until: '2020-01-01T00:00:00Z' },
    /^until: must be later than the sandbox's now \(2026-11-22T/,
  ],
]

describe.each(runtimes)('answers a user defines, through $name', (runtime) => {
  const file = fileURLToPath(new URL('./hostile-scenario.js', import.meta.url))
  const rt = useSandbox(runtime, { scenarioDefinitions: [...scenarios, hostile], scenarioFiles: [file] } as never)

  const layersAnswer = async (c: Client) => (await c.get(LAYERS)).status

  it.each(refusals)(
    'refuses an override with %s: a 400 naming the field, nothing added',
    async (_, override, message) => {
      const c = await rt.isolated()
      const res = await c.control.post('/overrides', override)
      expect(res.status, await res.text()).toBe(400)
      expect(res.body.message).toMatch(message)
      expect((await c.control.get('/overrides')).body.overrides).toEqual([])
      expect(await layersAnswer(c)).toBe(200)
    },
  )

  it('refuses the same on an edit and in a snapshot restore, naming the field, and changes nothing', async () => {
    const c = await rt.isolated()
    const created = await c.control.post('/overrides', answer({ headers: { 'x-u': 'fine' } }))
    expect(created.status).toBe(201)
    const edit = await c.control.put(`/overrides/${created.body.id}`, answer({ headers: { 'x-u': '\u2603' } }))
    expect(edit.status).toBe(400)
    expect(edit.body.message).toMatch(/^respond\.headers\.x-u: must hold only/)
    const snapshot = (await c.control.get('/snapshot')).body
    const stored = snapshot.overrides[0]
    for (const [respond, message] of [
      [{ ...stored.respond, headers: { 'x-u': '\u2603' } }, /^overrides\.0\.respond\.headers\.x-u: must hold only/],
      [
        { ...stored.respond, headers: { 'content-length': '1' } },
        /^overrides\.0\.respond\.headers\.content-length: is written by the server/,
      ],
      [{ ...stored.respond, status: 204, body: { a: 1 } }, /^overrides\.0\.respond\.body: must be left out/],
    ] as const) {
      const res = await c.control.put('/snapshot', { ...snapshot, overrides: [{ ...stored, respond }] })
      expect(res.status, await res.text()).toBe(400)
      expect(res.body.message).toMatch(message)
    }
    expect((await c.control.get('/overrides')).body.overrides).toMatchObject([
      { respond: { headers: { 'x-u': 'fine' } } },
    ])
    expect(await c.get(LAYERS).then((r) => r.headers.get('x-u'))).toBe('fine')
  })

  it('sends a Latin-1 header value as it was defined, on every engine', async () => {
    const c = await rt.isolated()
    expect(
      (await c.control.post('/overrides', answer({ headers: { 'x-u': 'caf\u00e9 \u00bfs\u00ed?' } }))).status,
    ).toBe(201)
    expect((await c.get(LAYERS)).headers.get('x-u')).toBe('caf\u00e9 \u00bfs\u00ed?')
  })

  it('answers a 204 override without a body, and keeps the connection in step', async () => {
    const c = await rt.isolated()
    expect((await c.control.post('/overrides', answer({ status: 204 }))).status).toBe(201)
    const res = await c.get(LAYERS)
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect(await layersAnswer(c.as(c.token))).toBe(204)
  })

  it.each(HOSTILE_KINDS.flatMap((kind) => ['edge', 'after'].map((where): [string, string] => [kind, where])))(
    'a scenario hook answering %s (in %s): a 500 naming why, marked, journaled 500; every world serves on',
    async (kind, where) => {
      const c = await rt.isolated()
      const other = await rt.isolated()
      const res = await c.get(LAYERS, { 'x-sandbox-scenario': `hostile;kind=${kind};where=${where}` })
      expect(res.status, await res.text()).toBe(500)
      expect(res.headers.get('x-sandbox-fault')).toContain('bad-answer')
      expect(res.body.message).toMatch(/^answer: cannot be written: /)
      const journal = (await c.control.get('/requests')).body.requests.filter(
        (e: { path: string }) => e.path === LAYERS,
      )
      expect(journal.map((e: { status: number; faults: string[] }) => [e.status, e.faults])).toEqual([
        [500, expect.arrayContaining(['bad-answer'])],
      ])
      // The same connection, the same world and another world: all still answered.
      expect(await layersAnswer(c)).toBe(200)
      expect(await layersAnswer(other)).toBe(200)
    },
  )

  it('a tool call (MCP) that meets such an answer is a tool error with the 500 and its cause', async () => {
    const c = await rt.isolated()
    const token = (await c.control.post('/tokens/agent', { email: 'admin@fleet.test' })).body.token as string
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'listLayers', arguments: {} },
    })
    const res = await rt.fetch('/mcp', {
      method: 'POST',
      body: call,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${token}`,
        'x-sandbox-id': c.id!,
        'x-sandbox-scenario': 'hostile;kind=snowman',
      },
    })
    expect(res.status).toBe(200)
    const { result } = (await res.json()) as {
      result: { isError?: boolean; structuredContent: { status: number; body: { message: string }; faults: string[] } }
    }
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({
      status: 500,
      body: { message: expect.stringMatching(/^answer: cannot be written: header x-u/) },
      faults: ['bad-answer'],
    })
    expect(await layersAnswer(c)).toBe(200)
  })

  it('names the cause: the header, the status, the body', async () => {
    const c = await rt.isolated()
    const cause = async (kind: string) =>
      (await c.get(LAYERS, { 'x-sandbox-scenario': `hostile;kind=${kind}` })).body.message
    expect(await cause('snowman')).toBe(
      'answer: cannot be written: header x-u must hold only tabs, spaces, visible ASCII and Latin-1 letters (what an HTTP header carries; no control characters)',
    )
    expect(await cause('status-text')).toBe('answer: cannot be written: status "abc" is not an integer from 200 to 599')
    expect(await cause('status-999')).toBe('answer: cannot be written: status 999 is not an integer from 200 to 599')
    expect(await cause('204-body')).toBe('answer: cannot be written: a 204 answer carries no body')
    expect(await cause('content-length')).toBe(
      'answer: cannot be written: header content-length is written by the server (it frames the message or the connection)',
    )
    expect(await cause('not-an-answer')).toBe(
      'answer: cannot be written: it is not an answer {status, headers?, body?}',
    )
    expect(await cause('bigint-body')).toMatch(
      /^answer: cannot be written: it could not be read or written as JSON \(.*BigInt/,
    )
    expect(await cause('function-body')).toBe('answer: cannot be written: its body (function) is not JSON')
    expect(await cause('locked-stream')).toBe('answer: cannot be written: its body stream is being read already')
    expect(await cause('throwing-status')).toBe(
      'answer: cannot be written: it could not be read or written as JSON (no status for you)',
    )
  })
})
