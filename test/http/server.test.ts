import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { createHonoApp, startServer, type RunningServer } from '../../src/adapters/server/index.js'
import { createSandboxApp } from '../../src/apps/page-app.js'

describe('HTTP conventions of the server', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ seed: 1, size: 'small', port: 0 })
  })
  afterAll(() => server.close())

  it('listens on 127.0.0.1 by default', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('answers preflights: echoes the origin with credentials and allows the sandbox headers', async () => {
    const res = await fetch(`${server.url}/api/notifications`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers':
          'authorization,content-type,x-sandbox-id,x-sandbox-scenario,x-sandbox-control-token',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase()
    for (const h of ['authorization', 'content-type', 'x-sandbox-id', 'x-sandbox-scenario', 'x-sandbox-control-token'])
      expect(allowed).toContain(h)
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH')
  })

  it('exposes set-auth-token, retry-after and x-sandbox-fault to browser code', async () => {
    const res = await fetch(`${server.url}/api/session-auth/sign-in/email`, {
      method: 'POST',
      headers: { origin: 'http://localhost:5173', 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
    })
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    const exposed = res.headers.get('access-control-expose-headers')!.toLowerCase()
    for (const h of ['set-auth-token', 'retry-after', 'x-sandbox-fault']) expect(exposed).toContain(h)
  })
})

describe('createHonoApp: the front door mounted in a Hono app of your own', () => {
  it("answers the sandbox's routes, its 404 and 405, a HEAD like a GET without the body, and CORS", async () => {
    const app = createSandboxApp({ seed: 1, size: 'small' })
    await app.ready()
    const hono = new Hono().route('/', createHonoApp(app))
    const health = await hono.request('/__sandbox/health', { headers: { origin: 'http://localhost:5173' } })
    expect(health.status).toBe(200)
    expect(health.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect((await hono.request('/api/nope')).status).toBe(404)
    const wrong = await hono.request('/api/notifications', { method: 'PUT' })
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'GET'])
    const head = await hono.request('/__sandbox/health', { method: 'HEAD' })
    expect([head.status, await head.text()]).toEqual([200, ''])
    expect((await app.ready()).journal.list().map((e) => `${e.method} ${e.status}`)).toEqual(['GET 404', 'PUT 405'])
  })
})
