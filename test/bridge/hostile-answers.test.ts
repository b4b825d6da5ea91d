import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createHonoApp } from '../../src/adapters/server/app.js'
import { createSandboxApp } from '../../src/apps/page-app.js'
import { ADMIN_TOKEN } from '../support/client.js'
import { runCli, startCli, urlOf } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'
import { NOW } from '../support/runtimes.js'
import { type Scripted, type ScriptedUpstream, startScripted } from '../support/scripted-upstream.js'

const TOKEN = 'upstream-secret-hostile'
const folder = () => mkdtempSync(join(tmpdir(), 'hostile-'))
const read = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'))
const json = (value: unknown): Scripted => ({ body: JSON.stringify(value) })
const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM')))

/** 45,000 list elements, each with a field of its own: differences past any bound, in 700 KB. */
const manyDiffering = JSON.stringify({ data: Array.from({ length: 45_000 }, (_, i) => ({ [`x${i}`]: 1 })) })
const CUT = 'more than 100 findings: the first 100 are listed'
const DEEP = 10_000

/** Layers an upstream of another seed holds: real records, valid for the collection. */
async function realLayers(): Promise<Record<string, unknown>[]> {
  const app = createSandboxApp({ seed: 7, now: NOW, size: 'small' })
  await app.ready()
  const res = await createHonoApp(app).fetch(
    new Request('http://upstream.test/api/layers', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
  )
  return (await res.json()).data
}

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('the bridge against big and strange answers', () => {
  let upstream: ScriptedUpstream
  let layers: Record<string, unknown>[]
  beforeAll(async () => {
    upstream = await startScripted()
    layers = await realLayers()
  })
  afterAll(() => upstream?.close())
  const walk = (...args: string[]) => runCli([...args, '--upstream', upstream.url, '--upstream-token', TOKEN])

  it('drift lists the first 100 findings of 45,000 differing elements, says they were cut, and writes --out', async () => {
    upstream.answers = { '/api/layers': { body: manyDiffering } }
    const out = join(folder(), 'report.json')
    const run = await walk('drift', '--out', out)
    expect(run.err).toBe('')
    expect(run.code).toBe(1)
    const layersOp = JSON.parse(readFileSync(out, 'utf8')).operations.find(
      (o: { operation: string }) => o.operation === 'GET /api/layers',
    )
    expect(layersOp).toMatchObject({ status: 'drift', httpStatus: 200, reason: CUT })
    expect(layersOp.findings).toHaveLength(100)
    expect(layersOp.findings).toContainEqual({ kind: 'extra', pointer: '/data/0/x0', actual: 'integer' })
    expect(run.out).toContain(CUT)
  })

  it('drift that fails is exit 2 with a message, never 1 (a CI gate reads 1 as drift)', async () => {
    upstream.answers = { '/api/layers': json({ data: layers }) }
    const run = await walk('drift', '--out', folder())
    expect(run.code).toBe(2)
    expect(run.err).toMatch(/^fleet-sandbox drift: the walk failed, nothing was checked: .*EISDIR/)
    expect(run.err + run.out).not.toContain(TOKEN)
  })

  it('record takes a list of 45,000 differing elements', async () => {
    upstream.answers = { '/api/layers': { body: manyDiffering } }
    const dir = folder()
    const run = await walk('record', '--out', dir)
    expect(run.err).toBe('')
    expect(run.code).toBe(0)
    const report = read(dir, 'record-report.json').collections.layers
    expect(report.leftOut).toHaveLength(45_000)
    expect(report.leftOut.at(-1)).toBe('x44999')
  })

  it('drift: a content type named like a property of every object (constructor) is a media-type finding', async () => {
    upstream.answers = {
      '/api/layers': { type: 'constructor', body: JSON.stringify({ data: layers }) },
      '/api/vehicle-types': { type: 'toString', body: '{}' },
    }
    const out = join(folder(), 'report.json')
    expect((await walk('drift', '--out', out)).code).toBe(1)
    const ops = JSON.parse(readFileSync(out, 'utf8')).operations
    expect(ops.find((o: { operation: string }) => o.operation === 'GET /api/layers')).toMatchObject({
      status: 'drift',
      findings: [{ kind: 'media-type', pointer: '', expected: ['application/json'], actual: 'constructor' }],
    })
    expect(ops.find((o: { operation: string }) => o.operation === 'GET /api/vehicle-types')).toMatchObject({
      status: 'drift',
      findings: [{ kind: 'media-type', actual: 'tostring' }],
    })
  })

  it('record leaves out keys named like properties of every object, and --fixtures takes what it wrote', async () => {
    const [first, second] = layers
    // As an upstream sends them: `__proto__` an own key of the parsed record, as the others.
    const strange = `{"__proto__":{"polluted":true},"constructor":"c","toString":"t","hasOwnProperty":"h","valueOf":1,${JSON.stringify(first).slice(1)}`
    upstream.answers = { '/api/layers': { body: `{"data":[${strange},${JSON.stringify(second)}]}` } }
    const dir = folder()
    const run = await walk('record', '--out', dir)
    expect(run.err).toBe('')
    expect(run.code).toBe(0)
    const written = read(dir, 'layers.json')
    expect(written.map((l: { id: string }) => l.id)).toEqual([first.id, second.id])
    expect(Object.keys(written[0]).sort()).toEqual(
      Object.keys(second)
        .concat('clientId')
        .filter((k, i, all) => all.indexOf(k) === i)
        .sort(),
    )
    expect(readFileSync(join(dir, 'layers.json'), 'utf8')).not.toMatch(
      /__proto__|constructor|toString|hasOwnProperty|valueOf|polluted/,
    )
    expect(read(dir, 'record-report.json').collections.layers.leftOut).toEqual([
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
    ])
    const { child, output } = await startCli(['--fixtures', dir, '--port', '0', '--seed', '1'])
    try {
      const served = await (
        await fetch(`${urlOf(output())}/api/layers`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      ).json()
      expect(served.data.map((l: { id: string }) => l.id).sort()).toEqual([first.id, second.id].sort())
    } finally {
      await stop(child)
    }
  })

  it.each([[[]], [['--redact-emails']]])(
    'record drops a record nested 10,000 deep, naming the rule (%j)',
    async (flags) => {
      const [first, second] = layers
      const deep = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`
      upstream.answers = {
        '/api/layers': {
          body: `{"data":[${JSON.stringify(first)},{"id":"deep-1","name":${deep}},${JSON.stringify({ ...second, description: { note: JSON.parse(`${'['.repeat(150)}${']'.repeat(150)}`) } })}]}`,
        },
      }
      const dir = folder()
      const run = await walk('record', '--out', dir, ...flags)
      expect(run.err).toBe('')
      expect(run.code).toBe(0)
      expect(read(dir, 'layers.json').map((l: { id: string }) => l.id)).toEqual([first.id])
      expect(read(dir, 'record-report.json').collections.layers.dropped).toEqual([
        { id: 'deep-1', reason: '(record): must nest at most 100 levels of lists and objects' },
        { id: second.id, reason: '(record): must nest at most 100 levels of lists and objects' },
      ])
    },
  )

  it.each([
    ['a null entry', [null], 'log.entries[0]: must be an object (a HAR entry: {request, response})'],
    [
      'a URL that is none',
      [
        {
          request: { method: 'GET', url: 'http://x.test/api/layers' },
          response: { status: 200, content: { text: '{}' } },
        },
        { request: { method: 'GET', url: 'not a url' }, response: { status: 200, content: {} } },
      ],
      'log.entries[1].request.url: must be an absolute URL, got "not a url"',
    ],
    [
      'no response',
      [{ request: { method: 'GET', url: 'http://x.test/api/layers' } }],
      'log.entries[0].response: must be an object ({status, content, ...})',
    ],
    [
      'a text that is no string',
      [
        {
          request: { method: 'GET', url: 'http://x.test/api/layers' },
          response: { status: 200, content: { text: 5 } },
        },
      ],
      'log.entries[0].response.content.text: must be a string',
    ],
  ])('record --har names the file, the entry and the field of a bad entry: %s', async (_, entries, message) => {
    const dir = folder()
    const har = join(dir, 'session.har')
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', entries } }))
    const run = await runCli(['record', '--har', har, '--out', join(dir, 'out')])
    expect(run.code).toBe(2)
    expect(run.err.trim()).toBe(`fleet-sandbox record: --har ${har}: ${message}`)
  })
})

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs')).each(['node', 'workerd'])(
  'a server on the %s engine with a hostile upstream',
  (engine) => {
    let upstream: ScriptedUpstream
    let child: ChildProcess
    let url: string
    beforeAll(async () => {
      upstream = await startScripted({ '/api/layers': { body: manyDiffering } })
      const started = await startCli([
        '--engine',
        engine,
        '--port',
        '0',
        '--upstream',
        upstream.url,
        '--upstream-token',
        TOKEN,
        '--upstream-route',
        '/api/layers',
      ])
      child = started.child
      url = urlOf(started.output())
    })
    afterAll(async () => {
      if (child) await stop(child)
      await upstream?.close()
    })
    const call = (path: string, init: RequestInit = {}, sandbox = 'hostile') =>
      fetch(url + path, {
        ...init,
        headers: {
          'x-sandbox-id': sandbox,
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(init.headers as Record<string, string>),
        },
      })

    it('POST /__sandbox/drift answers the report, the findings of 45,000 differing elements cut at 100', async () => {
      const res = await call(
        '/__sandbox/drift',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
        'hostile-walk',
      )
      expect(res.status).toBe(200)
      const report = await res.json()
      const op = report.operations.find((o: { operation: string }) => o.operation === 'GET /api/layers')
      expect(op).toMatchObject({ status: 'drift', reason: CUT })
      expect(op.findings).toHaveLength(100)
    })

    it('journals a passed-through answer of 45,000 differing elements, with its findings cut at 100', async () => {
      const res = await call('/api/layers')
      expect(res.status).toBe(200)
      expect(res.headers.get('x-sandbox-upstream')).toBe('passthrough')
      expect((await res.text()).length).toBe(manyDiffering.length)
      await vi.waitFor(
        async () => {
          const report = await (await call('/__sandbox/drift')).json()
          expect(report.operations).toContainEqual(
            expect.objectContaining({ operation: 'GET /api/layers', status: 'drift', reason: CUT }),
          )
        },
        { timeout: 20_000, interval: 200 },
      )
      const { requests } = await (await call('/__sandbox/requests')).json()
      const entry = requests.find((e: { path: string }) => e.path === '/api/layers')
      expect(entry).toMatchObject({ status: 200 })
      const full = await (await call(`/__sandbox/requests/${entry.id}`)).json()
      expect(full.drift).toHaveLength(100)
    })
  },
)
