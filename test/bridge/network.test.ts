import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { freshId } from '../support/client.js'
import { type Running, type Runtime, runtimes } from '../support/runtimes.js'
import { MB, type NetworkUpstream, send, startNetworkUpstream } from '../support/network-upstream.js'

/**
 * The bridge on the wire (docs/bridge.md): what the upstream sees of a caller's request, bodies
 * sent with `Expect: 100-continue`, large and stalled answers, and a caller that leaves. Requests
 * go on connections of their own (node:http), so a caller that leaves drops only its own.
 */
const http = runtimes.filter((r) => r.http)

/** The journal entries of a sandbox, once `ready` finds the one wanted. */
async function journalOf(rt: Running, sandbox: string, ready: (entries: any[]) => any): Promise<any> {
  let found: any
  await vi.waitFor(
    async () => {
      const list = await (await rt.fetch('/__sandbox/requests', { headers: { 'x-sandbox-id': sandbox } })).json()
      found = ready(list.requests)
      expect(found).toBeDefined()
    },
    { timeout: 15_000, interval: 50 },
  )
  return found
}

/** A request whose answer's head is all the caller waits for: its status and headers, and the request to leave with. */
function headOf(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; leave(): void; body: Promise<'ended' | 'cut'> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      const body = new Promise<'ended' | 'cut'>((done) => {
        res.resume()
        res.once('end', () => done('ended'))
        res.once('error', () => done('cut'))
        res.once('aborted', () => done('cut'))
      })
      resolve({ status: res.statusCode!, headers: res.headers, leave: () => req.destroy(), body })
    })
    req.once('error', reject)
    req.end()
  })
}

/** A fake upstream and `runtime` bridged to it for the block, with this bound on the upstream's silences. */
function useBridged(
  runtime: Runtime,
  timeoutMs?: number,
): { upstream: NetworkUpstream; rt: Running & { url: string } } {
  const running = {} as { upstream: NetworkUpstream; rt: Running & { url: string } }
  beforeAll(async () => {
    running.upstream = await startNetworkUpstream()
    running.rt = (await runtime.start({ upstream: { url: running.upstream.url, timeoutMs } })) as Running & {
      url: string
    }
  })
  afterAll(async () => {
    await running.rt?.close()
    await running.upstream?.close()
  })
  return running
}

describe.each(runtimes)('what the upstream sees through $name', (runtime) => {
  const bridged = useBridged(runtime)

  it('never the control token: not forwarded, and <redacted> in the journal and the HAR (of served requests too, over HTTP)', async () => {
    const sandbox = freshId('net')
    const token = 'ctl-secret-4b1d'
    const headers = { 'x-sandbox-id': sandbox, 'x-sandbox-control-token': token }
    expect(
      (
        await bridged.rt.fetch('/api/echo/token', {
          method: 'POST',
          headers: { ...headers, 'content-type': 'text/plain' },
          body: 'abc',
        })
      ).status,
    ).toBe(201)
    expect((await bridged.rt.fetch('/__sandbox/health', { headers })).status).toBe(200)
    expect((await bridged.rt.fetch('/api/layers', { headers })).status).toBe(401)
    const seen = bridged.upstream.seen.find((s) => s.url === '/api/echo/token')!
    expect(seen.headers.map(([name]) => name)).not.toContain('x-sandbox-control-token')
    const entries = await journalOf(bridged.rt, sandbox, (list) => (list.length >= 2 ? list : undefined))
    // In-process (msw/node) no control token guards anything: served entries show what the test sent.
    for (const entry of runtime.http
      ? entries
      : entries.filter((e: { path: string }) => e.path === '/api/echo/token')) {
      const detail = await (
        await bridged.rt.fetch(`/__sandbox/requests/${entry.id}`, { headers: { 'x-sandbox-id': sandbox } })
      ).json()
      expect(detail.request.headers['x-sandbox-control-token'], entry.path).toBe('<redacted>')
    }
    const har = await (
      await bridged.rt.fetch('/__sandbox/requests.har', { headers: { 'x-sandbox-id': sandbox } })
    ).text()
    expect(har).toContain('/api/echo/token')
    if (runtime.http) expect(har).not.toContain(token)
  })
})

describe.each(http)('the bridge on the wire through $name', (runtime) => {
  // A bound no test here waits for: a stalled body is let go because its caller left.
  const bridged = useBridged(runtime, 120_000)

  it("forwards the caller's headers and nothing of its own: none the caller's connection names, no cf-worker, no fetch defaults, the body with its length", async () => {
    const sandbox = freshId('net')
    const res = await send(`${bridged.rt.url}/api/echo/headers`, {
      method: 'POST',
      headers: {
        connection: 'keep-alive, x-hop',
        'x-hop': 'one hop only',
        'x-kept': 'yes',
        'content-type': 'text/plain',
        'content-length': 5,
        'x-sandbox-id': sandbox,
      },
      body: 'hello',
    })
    expect(res.status, res.body.toString()).toBe(201)
    const seen = bridged.upstream.seen.find((s) => s.url === '/api/echo/headers')!
    expect(seen.bodyLength).toBe(5)
    // node:http's own `connection` aside (it describes the sandbox's connection to the upstream).
    const names = seen.headers
      .map(([name]) => name)
      .filter((name) => name !== 'connection')
      .sort()
    expect(names).toEqual(['content-length', 'content-type', 'host', 'x-kept', 'x-sandbox-id'])
    expect(Object.fromEntries(seen.headers)).toMatchObject({
      'content-length': '5',
      'x-kept': 'yes',
      host: new URL(bridged.upstream.url).host,
    })
  })

  it('refuses a target with a user in it with a 400 naming the rule, and forwards nothing', async () => {
    const before = bridged.upstream.seen.length
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { port } = new URL(bridged.rt.url)
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `http://x@127.0.0.1:${port}/api/echo/user`,
          headers: { 'content-type': 'application/json', 'content-length': 2 },
          agent: false,
        },
        (res) => {
          let body = ''
          res
            .setEncoding('utf8')
            .on('data', (d) => (body += d))
            .once('end', () => resolve({ status: res.statusCode!, body }))
        },
      )
      req.once('error', reject)
      req.end('{}')
    })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body).message).toContain('request target: must not carry user information')
    expect(bridged.upstream.seen.length).toBe(before)
    expect(bridged.rt.output?.() ?? '').not.toMatch(/TypeError/)
  })

  it('passes a body sent with Expect: 100-continue (curl does past 1 MB) through whole', async () => {
    const body = Buffer.alloc(1.5 * MB, 120)
    const res = await send(`${bridged.rt.url}/api/echo/continue`, {
      method: 'POST',
      headers: {
        expect: '100-continue',
        'content-type': 'application/octet-stream',
        'content-length': body.length,
        'x-sandbox-id': freshId('net'),
      },
      body,
    })
    expect(res.status, res.body.toString()).toBe(201)
    expect(JSON.parse(res.body.toString())).toEqual({
      method: 'POST',
      url: '/api/echo/continue',
      bodyLength: body.length,
    })
    expect(
      bridged.upstream.seen.find((s) => s.url === '/api/echo/continue')!.headers.map(([name]) => name),
    ).not.toContain('expect')
  })

  it('streams a 50 MB answer through whole, with its length', async () => {
    const res = await send(`${bridged.rt.url}/api/big/50`, { headers: { 'x-sandbox-id': freshId('net') } })
    expect(res.status).toBe(200)
    expect(res.headers['x-sandbox-upstream']).toBe('passthrough')
    expect(res.body.length).toBe(50 * MB)
    expect(res.body.equals(Buffer.alloc(50 * MB, 97))).toBe(true)
  })

  it("gives a stalled body's caller its head, and lets the upstream go (and journals the request) when the caller leaves", async () => {
    const sandbox = freshId('net')
    const answer = await headOf(`${bridged.rt.url}/api/stall/left`, { 'x-sandbox-id': sandbox })
    expect(answer.status).toBe(200)
    expect(answer.headers['x-sandbox-upstream']).toBe('passthrough')
    expect(bridged.upstream.closed).not.toContain('/api/stall/left')
    answer.leave()
    await vi.waitFor(() => expect(bridged.upstream.closed).toContain('/api/stall/left'), {
      timeout: 15_000,
      interval: 50,
    })
    const entry = await journalOf(bridged.rt, sandbox, (list) =>
      list.find((e: { path: string }) => e.path === '/api/stall/left'),
    )
    expect(entry.status).toBe(200)
  })
})

describe.each(http)('an upstream body gone silent through $name', (runtime) => {
  // The bound of the wait for the head applies to each wait on the body too: lowered here.
  const bridged = useBridged(runtime, 1000)

  it('is cut once silent past the bound: the caller sees it cut (not ended short), the upstream is let go, the request journaled', async () => {
    const sandbox = freshId('net')
    const answer = await headOf(`${bridged.rt.url}/api/stall/silent`, { 'x-sandbox-id': sandbox })
    expect(answer.status).toBe(200)
    expect(await answer.body).toBe('cut')
    await vi.waitFor(() => expect(bridged.upstream.closed).toContain('/api/stall/silent'), {
      timeout: 15_000,
      interval: 50,
    })
    const entry = await journalOf(bridged.rt, sandbox, (list) =>
      list.find((e: { path: string }) => e.path === '/api/stall/silent'),
    )
    expect(entry.status).toBe(200)
  })
})
