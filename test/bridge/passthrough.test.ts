import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { AppOptions } from '../../src/apps/page-app.js'
import { freePort } from '../support/cli.js'
import { freshId } from '../support/client.js'
import { listen } from '../support/events.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { type FakeUpstream, startUpstream, UPSTREAM_TOKEN } from '../support/upstream.js'

/** The caller's own credential for the upstream (the fake one takes any `Bearer caller-...`). */
const CALLER = 'caller-5d1e'

describe.each(runtimes)('passthrough to an upstream through $name', (runtime) => {
  const options: Partial<AppOptions> = {}
  let upstream: FakeUpstream
  let elsewhere: FakeUpstream
  beforeAll(async () => {
    upstream = await startUpstream('planted')
    elsewhere = await startUpstream('conforming')
    // A short time-out, so the test of a silent upstream ends soon; nothing here is timed.
    options.upstream = {
      url: upstream.url,
      token: UPSTREAM_TOKEN,
      routes: ['/api/layers', '/api/v1/*/list'],
      timeoutMs: 1000,
    }
  })
  afterAll(async () => {
    await upstream?.close()
    await elsewhere?.close()
  })
  const rt = useSandbox(runtime, options)

  const send = (sandbox: string, path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    rt.fetch(path, {
      ...init,
      headers: { 'x-sandbox-id': sandbox, authorization: `Bearer ${CALLER}`, ...init.headers },
    })

  /** The journal entry of `path` once it is written (after the answer's body has passed). */
  async function entryOf(sandbox: string, path: string): Promise<any> {
    let found: any
    await vi.waitFor(
      async () => {
        const list = await (await rt.fetch('/__sandbox/requests', { headers: { 'x-sandbox-id': sandbox } })).json()
        found = list.requests.find((e: { path: string }) => e.path === path)
        expect(found).toBeDefined()
      },
      { timeout: 15_000, interval: 50 },
    )
    return found
  }

  it('answers a route the sandbox lacks from the upstream: method, body and headers as sent, the caller credential its own', async () => {
    const sandbox = freshId('pass')
    const before = upstream.seen.length
    const res = await send(sandbox, '/api/echo/things?x=1', {
      method: 'POST',
      body: '{"name":"truck"}',
      headers: { 'content-type': 'application/json', 'proxy-authorization': 'Basic c2FuZGJveA==' },
    })
    expect(res.status, await res.clone().text()).toBe(201)
    expect(res.headers.get('x-sandbox-upstream')).toBe('passthrough')
    expect(res.headers.get('x-upstream')).toBe('echo')
    expect(await res.json()).toEqual({ method: 'POST', url: '/api/echo/things?x=1', body: '{"name":"truck"}' })
    const seen = upstream.seen.slice(before)
    expect(seen).toHaveLength(1)
    expect(seen[0].headers.authorization).toBe(`Bearer ${CALLER}`)
    // Hop-by-hop headers stay with the sandbox; the upstream token is never added.
    expect(seen[0].headers['proxy-authorization']).toBeUndefined()
    expect(JSON.stringify(seen)).not.toContain(UPSTREAM_TOKEN)
  })

  it('refuses a malformed x-sandbox-id with the 400 a served route gives, and forwards nothing', async () => {
    const before = upstream.seen.length
    for (const path of ['/api/echo/things', '/api/layers']) {
      const res = await send('has space', path)
      expect(res.status).toBe(400)
      expect((await res.json()).message).toContain('x-sandbox-id: must be 1 to 128')
    }
    expect(upstream.seen.length).toBe(before)
  })

  it('journals a passed-through request with its authorization redacted, in the entry and the HAR', async () => {
    const sandbox = freshId('pass')
    expect(
      (
        await send(sandbox, '/api/echo/journal', {
          method: 'PUT',
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ).toBe(201)
    const entry = await entryOf(sandbox, '/api/echo/journal')
    expect(entry).toMatchObject({ method: 'PUT', status: 201, faults: [] })
    const detail = await (
      await rt.fetch(`/__sandbox/requests/${entry.id}`, { headers: { 'x-sandbox-id': sandbox } })
    ).json()
    expect(detail.request.headers.authorization).toBe('Bearer <redacted>')
    expect(detail.request.body).toBe('x')
    expect(detail.response.headers['x-sandbox-upstream']).toBe('passthrough')
    const har = await (await rt.fetch('/__sandbox/requests.har', { headers: { 'x-sandbox-id': sandbox } })).text()
    expect(har).toContain('Bearer <redacted>')
    expect(har).not.toContain(CALLER)
  })

  it('keeps the 405 of a path the sandbox serves with another method', async () => {
    const before = upstream.seen.length
    const res = await send(freshId('pass'), '/api/vehicle-types', { method: 'DELETE' })
    expect(res.status).toBe(405)
    expect(res.headers.get('x-sandbox-upstream')).toBeNull()
    expect(upstream.seen.length).toBe(before)
  })

  it('forwards a served route an --upstream-route pattern names, checks the answer off its path, and reports the findings', async () => {
    const sandbox = freshId('pass')
    const sse = await listen(rt, { 'x-sandbox-id': sandbox })
    await sse.connected
    const empty = await (await rt.fetch('/__sandbox/drift', { headers: { 'x-sandbox-id': sandbox } })).json()
    expect(empty).toEqual({
      upstream: upstream.url,
      checkedAt: null,
      operations: [],
      summary: { ok: 0, drift: 0, unreachable: 0, skipped: 0 },
    })
    const res = await send(sandbox, '/api/layers')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-upstream')).toBe('passthrough')
    expect((await res.json()).data[0].color).toBeUndefined()
    // `*` is one segment: /api/v1/technician/list goes upstream, /api/v1/technician/get/{id} does not.
    const technicians = await send(sandbox, '/api/v1/technician/list')
    expect(technicians.headers.get('x-sandbox-upstream')).toBe('passthrough')
    await technicians.text()
    const missing = { kind: 'missing', pointer: '/data/0/color' }
    const entry = await entryOf(sandbox, '/api/layers')
    await vi.waitFor(
      () =>
        expect(
          sse.events.find((e) => e.event === 'drift' && e.data.operation === 'GET /api/layers')?.data,
        ).toMatchObject({ id: entry.id, httpStatus: 200, findings: [missing] }),
      { timeout: 15_000 },
    )
    sse.close()
    const listed = await (await rt.fetch('/__sandbox/requests', { headers: { 'x-sandbox-id': sandbox } })).json()
    expect(listed.requests.find((e: { id: number }) => e.id === entry.id).drift).toEqual([missing])
    const report = await (await rt.fetch('/__sandbox/drift', { headers: { 'x-sandbox-id': sandbox } })).json()
    expect(report.checkedAt).toEqual(expect.any(String))
    expect(report.operations).toContainEqual({
      operation: 'GET /api/layers',
      path: '/api/layers',
      status: 'drift',
      httpStatus: 200,
      findings: [missing],
    })
    expect(report.operations).toContainEqual(
      expect.objectContaining({ operation: 'GET /api/v1/technician/list', status: 'drift' }),
    )
  })

  it('POST /__sandbox/drift walks the upstream with the upstream token and answers the report', async () => {
    const sandbox = freshId('pass')
    const res = await rt.fetch('/__sandbox/drift', {
      method: 'POST',
      headers: { 'x-sandbox-id': sandbox, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(res.status).toBe(200)
    const report = await res.json()
    expect(report.summary).toMatchObject({ drift: 7, unreachable: 0 })
    expect(JSON.stringify(report)).not.toContain(UPSTREAM_TOKEN)
    const kept = await (await rt.fetch('/__sandbox/drift', { headers: { 'x-sandbox-id': sandbox } })).json()
    expect(kept.operations.filter((o: { status: string }) => o.status === 'drift')).toHaveLength(7)
  })

  it('answers 502 naming the host and port when the upstream does not answer in time', async () => {
    const res = await send(freshId('pass'), '/api/hang')
    expect(res.status).toBe(502)
    expect(res.headers.get('x-sandbox-upstream')).toBe('passthrough')
    const port = new URL(upstream.url).port
    expect(await res.json()).toEqual({
      statusCode: 502,
      message: `upstream 127.0.0.1:${port} did not answer within 1 s`,
      error: 'Bad Gateway',
    })
  })

  it('lets no request header, query or control route point it at another host', async () => {
    const sandbox = freshId('pass')
    const res = await send(sandbox, `/api/echo/where?upstream=${encodeURIComponent(elsewhere.url)}`, {
      headers: {
        'x-sandbox-upstream': elsewhere.url,
        'x-forwarded-host': new URL(elsewhere.url).host,
        forwarded: `host=${new URL(elsewhere.url).host}`,
      },
    })
    expect(res.status).toBe(201)
    const refused = await rt.fetch('/__sandbox/drift', {
      method: 'POST',
      headers: { 'x-sandbox-id': sandbox, 'content-type': 'application/json' },
      body: JSON.stringify({ upstream: elsewhere.url }),
    })
    expect(refused.status).toBe(400)
    expect((await refused.json()).message).toContain('upstream')
    expect(elsewhere.seen).toEqual([])
  })
})

describe.each(runtimes)('an unreachable upstream through $name', (runtime) => {
  const options: Partial<AppOptions> = {}
  beforeAll(async () => {
    options.upstream = { url: `http://127.0.0.1:${await freePort()}`, token: UPSTREAM_TOKEN }
  })
  const rt = useSandbox(runtime, options)

  it('answers 502 naming the host and port, and never the credential', async () => {
    const res = await rt.fetch('/api/anything', { headers: { authorization: `Bearer ${CALLER}` } })
    expect(res.status).toBe(502)
    const body = await res.json()
    expect(body).toMatchObject({
      statusCode: 502,
      error: 'Bad Gateway',
      message: expect.stringContaining(`could not be reached`),
    })
    expect(body.message).toContain(new URL(options.upstream!.url).host)
    expect(JSON.stringify(body)).not.toContain(CALLER)
  })
})
