import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LEGACY_JWT } from '../fixtures/accounts.js'
import { routes } from '../src/core/app/route-table.js'
import { control, signIn } from './support/client.js'
import { type Running, runtimes } from './support/runtimes.js'

const protectedRoutes = routes.filter((r) => r.auth.kind === 'user' || r.auth.kind === 'portal')
const concrete = (path: string) => path.replace(/:(\w+)/g, 'x')

describe.each(runtimes)('every protected route of the table refuses bad tokens through $name', (runtime) => {
  let rt: Running
  let expired: string
  const sid = { 'x-sandbox-id': 'auth-sweep' }
  beforeAll(async () => {
    rt = await runtime.start()
    expired = await signIn(rt, 'admin@fleet.test', 'sandbox', sid)
    await control(rt, sid).post('/clock', { advanceBy: '31d' })
  })
  afterAll(() => rt.close())

  it('covers the table', () => {
    expect(protectedRoutes.length).toBeGreaterThan(5)
  })

  const cases: [string, Record<string, string>][] = [
    ['no token', {}],
    ['a garbage token', { authorization: 'Bearer not-a-real-token' }],
    ['a malformed header', { authorization: 'Token abc' }],
    ['a legacy JWT', { authorization: `Bearer ${LEGACY_JWT}` }],
  ]

  it.each(protectedRoutes.map((r) => [r.method, r.path] as const))('%s %s', async (method, path) => {
    for (const [what, headers] of cases) {
      const res = await rt.fetch(concrete(path), { method, headers })
      expect(res.status, `${method} ${path} with ${what}`).toBe(401)
      const body = await res.json()
      expect(JSON.stringify(body), `${method} ${path} with ${what}`).toMatch(/authorization/)
    }
    const res = await rt.fetch(concrete(path), { method, headers: { ...sid, authorization: `Bearer ${expired}` } })
    expect(res.status, `${method} ${path} with an expired session`).toBe(401)
  })
})
