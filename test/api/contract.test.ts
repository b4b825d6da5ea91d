import { beforeAll, describe, expect, it } from 'vitest'
import { routes } from '../../src/apps/route-table.js'
import { communes } from '../../src/core/seed/chile.js'
import { ADMIN_TOKEN, type Client, freshId } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { acme, other } from '../billing/seeded.js'
import { expectEach } from '../support/each.js'

/** What docs/contract.md promises and issue 15 found missing, through each runtime's front door. */
const OPEN_UNDER_FORBIDDEN = new Set(['getMe', 'signOut'])
const concrete = (path: string) => path.replace(/:(\w+)/g, 'x')

async function portalSignIn(s: Client, email: string): Promise<string> {
  await s.as(null).post('/api/portal/auth/magic-link', { email })
  const links = (await s.control.get(`/outbox?kind=magic-link&to=${encodeURIComponent(email)}`)).body.outbox
  return (await s.as(null).post('/api/portal/auth/verify', { token: links.at(-1).token })).body.data.token
}

describe.each(runtimes)('the contract through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('an invoice answer carries clientId, in lists, reads, writes and the portal', async () => {
    const s = rt.fresh('contract-client-id', ADMIN_TOKEN)
    expect((await s.get(`/api/v1/billing/invoices/${acme.paid}`)).body.data.clientId).toBe('cli_acme')
    const list = (await s.get('/api/v1/billing/invoices?limit=50')).body.data.items
    expect(list.length).toBeGreaterThan(0)
    expectEach(list, (i: { clientId: string }) => i.clientId === 'cli_acme')
    expect((await s.post(`/api/v1/billing/invoices/${acme.drafts[0]}/publish`, {})).body.data.clientId).toBe('cli_acme')
    const portal = s.as(await portalSignIn(s, 'billing@acme.test'))
    expect((await portal.get(`/api/portal/invoices/${acme.paid}`)).body.data.clientId).toBe('cli_acme')
  })

  it('GET /__sandbox/scenarios names every documented option, optional ones included', async () => {
    const { scenarios } = (await rt.fresh('contract-options', ADMIN_TOKEN).control.get('/scenarios')).body
    const names = (name: string) =>
      scenarios.find((s: { name: string }) => s.name === name).optionList.map((o: { name: string }) => o.name)
    // Every scenario takes `routes` too (docs/your-own-answers.md#scoped-scenarios).
    expect(names('commit-then-fail')).toEqual(['timeoutMs', 'routes'])
    expect(names('session-expired')).toEqual(['ttl', 'routes'])
    expect(names('slow')).toEqual(['ms', 'min', 'max', 'routes'])
    expect(names('rate-limited')).toEqual(['failures', 'retryAfter', 'routes'])
    expect(names('dte-pending')).toEqual(expect.arrayContaining(['pendingSyncs', 'outcome', 'routes']))
    expect(names('empty')).toEqual(['routes'])
    const slow = scenarios.find((s: { name: string }) => s.name === 'slow')
    expect(slow.optionList[0]).toEqual({ name: 'ms', type: 'integer', default: 1000 })
    expect(slow.optionList[1]).toEqual({ name: 'min', type: 'integer' })
  })

  describe('under forbidden', () => {
    const protectedRoutes = routes.filter(
      (r) => (r.auth.kind === 'user' || r.auth.kind === 'portal') && !OPEN_UNDER_FORBIDDEN.has(r.id),
    )
    let s: Client
    let portalToken: string
    beforeAll(async () => {
      s = rt.fresh('contract-forbidden', ADMIN_TOKEN)
      portalToken = await portalSignIn(s, 'owner@acme.test')
    })

    it.each(protectedRoutes.map((r) => [r.method, r.path, r.auth.kind] as const))(
      '%s %s answers 403 before reading a bad body or type',
      async (method, path, kind) => {
        const token = kind === 'portal' ? portalToken : 'atk_sandbox_admin'
        const before = (await s.control.get('/snapshot')).body
        for (const [type, body] of [
          ['text/plain', 'not json'],
          ['application/json', '{"broken":'],
          ['multipart/form-data; boundary=x', '--x--'],
        ] as const) {
          const res = await rt.fetch(concrete(path), {
            method,
            headers: {
              'x-sandbox-id': s.id!,
              'x-sandbox-scenario': 'forbidden',
              authorization: `Bearer ${token}`,
              ...(method === 'GET' ? {} : { 'content-type': type }),
            },
            body: method === 'GET' ? undefined : body,
          })
          expect(res.status, `${method} ${path} with ${type}`).toBe(403)
          expect(res.headers.get('x-sandbox-fault')).toBe('forbidden')
        }
        const after = (await s.control.get('/snapshot')).body
        const settled = (snap: object) => ({ ...snap, journal: [], sessions: [], clock: null })
        expect(settled(after)).toEqual(settled(before))
      },
    )

    it('still answers 401 first to a caller without a valid token', async () => {
      const res = await rt.fetch('/api/v1/shipments/quote', {
        method: 'POST',
        headers: { ...rt.fresh('quote').headers, 'x-sandbox-scenario': 'forbidden', 'content-type': 'text/plain' },
        body: 'x',
      })
      expect(res.status).toBe(401)
    })
  })

  describe("in the portal, another client's resource is 403 whatever its state", () => {
    it('invoices: published, paid and draft', async () => {
      const s = rt.fresh('contract-portal-invoices', ADMIN_TOKEN)
      const portal = s.as(await portalSignIn(s, 'owner@acme.test'))
      for (const id of [other.noDte, other.paid, other.firstDraft]) {
        const res = await portal.get(`/api/portal/invoices/${id}`)
        expect(res.status, id).toBe(403)
        expect(res.body.message).toContain('does not belong to the client of the portal token')
      }
      // The token client's own draft stays hidden.
      expect((await portal.get(`/api/portal/invoices/${acme.drafts[0]}`)).status).toBe(404)
    })

    it('tickets: every status, seeded or created', async () => {
      const s = rt.fresh('contract-portal-tickets', ADMIN_TOKEN)
      const otherPortal = s.as(await portalSignIn(s, 'owner@other.test'))
      const created = (await otherPortal.post('/api/portal/support/tickets', { subject: 'a', body: 'b' })).body.data.id
      const ids = (await otherPortal.get('/api/portal/support/tickets?limit=50')).body.data.items.map(
        (t: { id: string }) => t.id,
      )
      expect(ids).toContain(created)
      for (const [i, status] of (['open', 'pending', 'closed'] as const).entries()) {
        await s.insert('tickets', {
          id: `tkt_other_state_${i}`,
          clientId: 'cli_other',
          contactId: 'pct_other',
          subject: 's',
          body: 'b',
          status,
          createdAt: '2026-11-01T00:00:00.000Z',
        })
        ids.push(`tkt_other_state_${i}`)
      }
      const acmePortal = s.as(await portalSignIn(s, 'owner@acme.test'))
      for (const id of ids) expect((await acmePortal.get(`/api/portal/support/tickets/${id}`)).status, id).toBe(403)
    })
  })

  describe('smaller rules', () => {
    it('emit-dte with content-type text/plain and an empty body is 415, and emits nothing', async () => {
      const s = rt.fresh('contract-415', ADMIN_TOKEN)
      const res = await s.send('POST', `/api/v1/billing/invoices/${acme.noDte}/emit-dte`, undefined, {
        'content-type': 'text/plain',
      })
      expect(res.status).toBe(415)
      expect(res.body.message).toBe('content-type: must be application/json, got text/plain')
      expect((await s.get(`/api/v1/billing/invoices/${acme.noDte}`)).body.data.dteId).toBeNull()
      // No type and no body is still an empty JSON body.
      expect((await s.post(`/api/v1/billing/invoices/${acme.noDte}/emit-dte`)).status).toBe(200)
    })

    it('a snapshot with nextId 0 says "must be greater than 0"', async () => {
      const s = rt.fresh('contract-next-id', ADMIN_TOKEN)
      const snapshot = (await s.control.get('/snapshot')).body
      const res = await s.control.put('/snapshot', { ...snapshot, nextId: 0 })
      expect(res.status).toBe(400)
      expect(res.body.message).toBe('nextId: must be greater than 0')
    })

    it('a JSON body with a UTF-8 byte order mark is read as if it had none (documented in docs/bad-input.md)', async () => {
      const body = new Uint8Array([
        0xef,
        0xbb,
        0xbf,
        ...new TextEncoder().encode(JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' })),
      ])
      const res = await rt.fetch('/api/session-auth/sign-in/email', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sandbox-id': freshId('contract-bom') },
        body,
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('set-auth-token')).toBeTruthy()
    })

    it('seeded addresses carry the coordinates of their own commune', async () => {
      const s = rt.fresh('contract-coordinates', ADMIN_TOKEN)
      const seen = new Set<string>()
      for (let page = 1; page <= 4; page++) {
        const items = (await s.get(`/api/notifications?limit=50&page=${page}`)).body.data.notifications as {
          address: string
          location: string
        }[]
        for (const n of items) {
          const commune = n.address.slice(n.address.lastIndexOf(', ') + 2)
          const [lat, lng] = n.location.split(',').map(Number)
          const [clat, clng] = communes[commune]
          expect(Math.abs(lat - clat), n.address).toBeLessThan(0.05)
          expect(Math.abs(lng - clng), n.address).toBeLessThan(0.05)
          seen.add(commune)
        }
      }
      expect(seen.has('Concepción') || seen.has('La Serena')).toBe(true)
    })
  })
})
