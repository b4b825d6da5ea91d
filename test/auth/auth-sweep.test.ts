import { beforeAll, describe, expect, it } from 'vitest'
import { LEGACY_JWT } from '../../fixtures/accounts.js'
import { routes } from '../../src/apps/route-table.js'
import { signIn } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const protectedRoutes = routes.filter((r) => r.auth.kind === 'user' || r.auth.kind === 'portal')
const concrete = (path: string) => path.replace(/:(\w+)/g, 'x')

describe.each(runtimes)('every protected route of the table refuses bad tokens through $name', (runtime) => {
  const rt = useSandbox(runtime)
  let expired: string
  const s = rt.fresh('auth-sweep')
  const sid = s.headers
  beforeAll(async () => {
    expired = await signIn(rt, 'admin@fleet.test', sid)
    await s.control.post('/clock', { advanceBy: '31d' })
  })

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
      const res = await rt.fetch(concrete(path), { method, headers: { ...sid, ...headers } })
      expect(res.status, `${method} ${path} with ${what}`).toBe(401)
      const body = await res.json()
      expect(JSON.stringify(body), `${method} ${path} with ${what}`).toMatch(/authorization/)
    }
    const res = await rt.fetch(concrete(path), { method, headers: { ...sid, authorization: `Bearer ${expired}` } })
    expect(res.status, `${method} ${path} with an expired session`).toBe(401)
  })
})
