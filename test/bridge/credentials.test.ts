import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startCli, urlOf } from '../support/cli.js'
import { type FakeUpstream, startUpstream, UPSTREAM_TOKEN } from '../support/upstream.js'
import { expectEach } from '../support/each.js'

const CALLER = 'caller-c0ffee'

describe('credentials of the bridge, as a user runs the server', () => {
  let upstream: FakeUpstream
  let elsewhere: FakeUpstream
  beforeAll(async () => {
    upstream = await startUpstream('planted')
    elsewhere = await startUpstream('conforming')
  })
  afterAll(async () => {
    await upstream?.close()
    await elsewhere?.close()
  })

  it('never show the upstream token or the caller credential: journal, HAR, panel, events, snapshot, state file, drift report, log', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'bridge-state-')), 'state.json')
    const { child, output } = await startCli([
      '--port',
      '0',
      '--upstream',
      upstream.url,
      '--upstream-token',
      UPSTREAM_TOKEN,
      '--upstream-route',
      '/api/layers',
      '--state',
      state,
    ])
    const base = urlOf(output())
    const seen: string[] = []
    const read = async (path: string, init?: RequestInit) => {
      const res = await fetch(base + path, init)
      const text = await res.text()
      seen.push(`${path}: ${text}`)
      return { status: res.status, text }
    }
    // The event stream, open while everything happens.
    const events = new AbortController()
    const stream = await fetch(`${base}/__sandbox/events`, { signal: events.signal })
    let streamed = ''
    const reading = (async () => {
      const reader = stream.body!.getReader()
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
        if (done) return
        streamed += new TextDecoder().decode(value)
      }
    })()
    try {
      const caller = { authorization: `Bearer ${CALLER}`, cookie: `session=${CALLER}` }
      expect(
        (
          await read('/api/echo/one', {
            method: 'POST',
            headers: { ...caller, 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      ).toBe(201)
      expect((await read('/api/layers', { headers: caller })).status).toBe(200)
      expect(
        (
          await read('/__sandbox/drift', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      ).toBe(200)
      // The journal is written once the answers' bodies have passed.
      for (let i = 0; i < 200 && !(await read('/__sandbox/requests')).text.includes('/api/layers'); i++)
        await new Promise((r) => setTimeout(r, 25))
      const journal = JSON.parse((await read('/__sandbox/requests')).text)
      for (const entry of journal.requests) await read(`/__sandbox/requests/${entry.id}`)
      expect(seen.join('\n')).toContain('Bearer <redacted>')
      await read('/__sandbox/requests.har')
      await read('/__sandbox')
      await read('/__sandbox/snapshot')
      await read('/__sandbox/drift')
      // An upstream named by a request is refused or ignored: the configured one answers.
      expect(
        (
          await read('/__sandbox/drift', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ upstream: elsewhere.url }),
          })
        ).status,
      ).toBe(400)
      expect(
        (
          await read(`/api/echo/two?upstream=${encodeURIComponent(elsewhere.url)}`, {
            headers: { 'x-sandbox-upstream': elsewhere.url, host: new URL(elsewhere.url).host },
          })
        ).status,
      ).toBe(201)
      expect(elsewhere.seen).toEqual([])
    } finally {
      events.abort()
      await reading
      await new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM')))
    }
    const everything = [seen.join('\n'), streamed, output(), readFileSync(state, 'utf8')].join('\n')
    expect(streamed).toContain('event: drift')
    expect(output()).toContain(`upstream: ${upstream.url}`)
    expect(everything).not.toContain(UPSTREAM_TOKEN)
    expect(everything).not.toContain(CALLER)
    // The token went only where it belongs: the walk's own requests to the configured upstream.
    expectEach(
      upstream.seen.filter((s) => s.headers.authorization === `Bearer ${UPSTREAM_TOKEN}`),
      (s) => s.method === 'GET',
    )
    expect(upstream.seen.find((s) => s.url === '/api/echo/one')?.headers.authorization).toBe(`Bearer ${CALLER}`)
  })

  it('name the flag, not the credential, when a flag is wrong', async () => {
    const run = await runCli(['--upstream-token', UPSTREAM_TOKEN])
    expect(run.code).toBe(1)
    expect(run.err).toContain('--upstream-token: needs --upstream URL')
    expect(run.out + run.err).not.toContain(UPSTREAM_TOKEN)
  })
})
