import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseOptions } from '../../src/cli/cli.js'
import { type Running, runtimes } from '../support/runtimes.js'

const ACAO = 'access-control-allow-origin'

// Both engines over HTTP: --cors-origin reaches workerd's objects as it reaches the Node engine's.
describe.each(runtimes.filter((r) => r.http))('CORS through $name', (runtime) => {
  let server: Running & { url: string }
  beforeAll(async () => {
    server = (await runtime.start({ corsOrigins: ['https://tools.example.com'] })) as Running & { url: string }
  })
  afterAll(() => server.close())

  const get = (path: string, origin: string) => fetch(server.url + path, { headers: { origin } })
  const preflight = (path: string, origin: string) =>
    fetch(server.url + path, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    })

  it.each([
    'https://evil.example',
    'http://localhost.evil.example',
    'http://127.0.0.1.evil.example:80',
    'null',
    'https://localhost:5173',
  ])('gives a foreign page (%s) no access to /__sandbox: no allow-origin on answers or preflights', async (origin) => {
    const snapshot = await get('/__sandbox/snapshot', origin)
    // Refused outright, not only hidden (control-origin.test.ts).
    expect(snapshot.status).toBe(403)
    expect(snapshot.headers.get(ACAO)).toBeNull()
    expect(snapshot.headers.get('access-control-allow-credentials')).toBeNull()
    expect((await get('/__sandbox', origin)).headers.get(ACAO)).toBeNull()
    expect((await preflight('/__sandbox/reset', origin)).headers.get(ACAO)).toBeNull()
    expect((await get('/__sandbox/nowhere', origin)).headers.get(ACAO)).toBeNull()
  })

  it.each([
    'http://localhost:5173',
    'http://127.0.0.1:3000',
    'http://[::1]:8080',
    'http://localhost',
    'https://tools.example.com',
  ])('echoes a loopback page or one named with --cors-origin (%s) on /__sandbox', async (origin) => {
    const res = await get('/__sandbox/health', origin)
    expect(res.headers.get(ACAO)).toBe(origin)
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    expect((await preflight('/__sandbox/reset', origin)).headers.get(ACAO)).toBe(origin)
  })

  it('keeps echoing any origin on /api/...', async () => {
    expect((await get('/api/notifications', 'https://evil.example')).headers.get(ACAO)).toBe('https://evil.example')
    expect((await preflight('/api/notifications', 'https://evil.example')).headers.get(ACAO)).toBe(
      'https://evil.example',
    )
  })

  it('journals the answer as sent: its CORS headers, once each, beside the request as received', async () => {
    const res = await fetch(`${server.url}/api/notifications?limit=1`, {
      headers: { origin: 'http://localhost:5173', 'X-Trace': 'a' },
    })
    expect(res.headers.get('vary')).toBe('Origin')
    const [last] = (await (await fetch(`${server.url}/__sandbox/requests?limit=1`)).json()).requests.slice(-1)
    const detail = await (await fetch(`${server.url}/__sandbox/requests/${last.id}`)).json()
    expect(detail.path).toBe('/api/notifications')
    expect(detail.response.headers).toMatchObject({
      [ACAO]: 'http://localhost:5173',
      vary: 'Origin',
      'access-control-allow-credentials': 'true',
      'content-type': 'application/json; charset=utf-8',
    })
    expect(detail.request.headers).toMatchObject({ origin: 'http://localhost:5173', 'x-trace': 'a' })
    expect(JSON.parse(detail.response.body)).toEqual(await res.json())
  })
})

describe('--cors-origin', () => {
  it('is repeatable and reads SANDBOX_CORS_ORIGIN as a comma-separated list', () => {
    expect(
      parseOptions(['--cors-origin', 'https://a.test', '--cors-origin', 'http://b.test:8080'], {}).options.corsOrigins,
    ).toEqual(['https://a.test', 'http://b.test:8080'])
    expect(parseOptions([], { SANDBOX_CORS_ORIGIN: 'https://a.test, https://c.test' }).options.corsOrigins).toEqual([
      'https://a.test',
      'https://c.test',
    ])
    expect(parseOptions([], {}).options.corsOrigins).toBeUndefined()
  })

  it.each(['a.test', 'https://a.test/', 'https://a.test/path', '*'])('refuses %s, naming the flag', (origin) => {
    expect(() => parseOptions(['--cors-origin', origin], {})).toThrow(/--cors-origin: must be an origin/)
  })
})
