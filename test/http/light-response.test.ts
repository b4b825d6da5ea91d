import { type ServerType, serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodeFetch } from '../../src/adapters/server/app.js'
import { createServedApp } from '../../src/apps/server-app.js'
import { keepAliveClient } from '../support/keep-alive.js'
import { NOW } from '../support/runtimes.js'

/**
 * @hono/node-server swaps the global Response for a light one that keeps `[status, body,
 * headers]` and writes it with one `end(body)` (its `responseViaCache`). Reading `type`,
 * `body`, `clone()` or `text()` on the way out builds the full Response and sends the answer
 * down the slow path, which once cost the Node engine much of its throughput (issue 46, in
 * `cutIfAsked`; docs/benchmarks-history.md). Not timed: every answer handed to the server must still hold its cache.
 */
const cached = (response: Response) => Object.getOwnPropertySymbols(response).some((s) => s.description === 'cache')
const light = (response: Response) =>
  cached(response) && Object.getPrototypeOf(response) === globalThis.Response.prototype

describe('answers stay on @hono/node-server cached path', () => {
  const handed: { request: string; response: Response }[] = []
  const client = keepAliveClient()
  let server: ServerType
  let origin = ''
  const call = (path: string, init: RequestInit = {}) =>
    client
      .fetch(origin + path, init)
      .then(async (r) => ({ status: r.status, text: await r.text(), headers: r.headers }))
  const post = (path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') =>
    call(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })

  beforeAll(async () => {
    const app = createServedApp({ seed: 1, now: NOW, size: 'small' })
    await app.ready()
    const answer = nodeFetch(app)
    server = await new Promise<ServerType>((resolve) => {
      const s = serve(
        {
          fetch: async (request: Request, env: unknown) => {
            const response = await answer(request, env as never)
            handed.push({ request: `${request.method} ${new URL(request.url).pathname}`, response })
            return response
          },
          port: 0,
          hostname: '127.0.0.1',
        },
        () => resolve(s),
      )
    })
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await client.close()
    await new Promise((resolve) => server.close(resolve))
  })

  it('tells a light Response from one whose lazy parts were read (the check can fail)', async () => {
    const fresh = new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } })
    expect(light(fresh)).toBe(true)
    fresh.headers.set('x-a', '1')
    expect(light(fresh)).toBe(true)
    for (const read of [
      (r: Response) => r.type,
      (r: Response) => r.body,
      (r: Response) => r.clone(),
      (r: Response) => r.text(),
    ]) {
      const touched = new Response('{}', { status: 200 })
      void read(touched)
      expect(light(touched)).toBe(false)
    }
  })

  it('hands every kind of answer over light: reads, writes, CORS, HEAD, control, overrides, scoped scenarios, MCP, errors', async () => {
    const signIn = await post('/api/session-auth/sign-in/email', { email: 'admin@fleet.test', password: 'sandbox' })
    expect(signIn.status).toBe(200)
    const token = signIn.headers.get('set-auth-token')!
    const auth = { authorization: `Bearer ${token}` }
    const page = await call('/api/notifications?limit=5', { headers: auth })
    expect(page.status).toBe(200)
    const id = JSON.parse(page.text).data.notifications[0].id as string
    // A write: its changes and its repro step are recorded.
    expect((await post(`/api/notifications/${id}`, { status: 'reviewed' }, auth, 'PATCH')).status).toBe(200)
    // CORS: a page's request and its preflight.
    const cors = await call('/api/notifications?limit=2', { headers: { ...auth, origin: 'http://localhost:5173' } })
    expect(cors.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(
      (
        await call('/api/notifications', {
          method: 'OPTIONS',
          headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'PATCH' },
        })
      ).status,
    ).toBe(204)
    expect((await call('/api/notifications?limit=1', { method: 'HEAD', headers: auth })).status).toBe(200)
    // 100 overrides installed, one of them answering; a scoped scenario on another route.
    for (let i = 0; i < 100; i++) {
      expect(
        (
          await post('/__sandbox/overrides', {
            match: { method: 'DELETE', path: `/api/layers/layer-${i}` },
            respond: { status: 200, body: { i } },
          })
        ).status,
      ).toBe(201)
    }
    expect((await call('/api/layers/layer-7', { method: 'DELETE', headers: auth })).text).toBe('{"i":7}')
    expect(
      (
        await post(
          '/__sandbox/scenarios',
          { active: [{ name: 'rate-limited', options: { routes: ['listLayers'] } }] },
          {},
          'PUT',
        )
      ).status,
    ).toBe(200)
    expect((await call('/api/layers', { headers: auth })).status).toBe(429)
    expect((await call('/api/notifications?limit=3', { headers: auth })).status).toBe(200)
    // Errors: unauthenticated, unknown path, bad input.
    expect((await call('/api/notifications')).status).toBe(401)
    expect((await call('/api/nowhere', { headers: auth })).status).toBe(404)
    expect((await call('/api/notifications?limit=abc', { headers: auth })).status).toBe(400)
    // The control API reads the journal (with changes) and the repro log.
    expect((await call('/__sandbox/requests')).status).toBe(200)
    expect((await call('/__sandbox/repro')).status).toBe(200)
    expect((await call('/__sandbox/health')).status).toBe(200)
    // MCP: the tuned tool call and the SDK's own answers.
    const agent = JSON.parse((await post('/__sandbox/tokens/agent', { email: 'operator@fleet.test' })).text)
      .token as string
    const mcp = {
      authorization: `Bearer ${agent}`,
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    }
    expect(
      (
        await post(
          '/mcp',
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'listNotifications', arguments: { limit: 2 } },
          },
          mcp,
        )
      ).status,
    ).toBe(200)
    expect(
      (
        await post(
          '/mcp',
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
          },
          mcp,
        )
      ).status,
    ).toBe(200)
    expect((await post('/mcp', { jsonrpc: '2.0', id: 3, method: 'tools/list' }, mcp)).status).toBe(200)

    expect(client.errors).toEqual([])
    expect(handed.length).toBeGreaterThanOrEqual(120)
    expect(handed.filter((h) => !light(h.response)).map((h) => `${h.request} (${h.response.status})`)).toEqual([])
  })

  it('still cuts the connection an override asks to cut, and serves the next request', async () => {
    expect(
      (
        await post('/__sandbox/overrides', {
          match: { method: 'GET', path: '/api/notifications' },
          respond: { error: 'network' },
          times: 1,
        })
      ).status,
    ).toBe(201)
    const signIn = await post('/api/session-auth/sign-in/email', { email: 'admin@fleet.test', password: 'sandbox' })
    const auth = { authorization: `Bearer ${signIn.headers.get('set-auth-token')}` }
    await expect(fetch(`${origin}/api/notifications`, { headers: auth })).rejects.toThrow()
    expect((await call('/api/notifications', { headers: auth })).status).toBe(200)
  })
})
