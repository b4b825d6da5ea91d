import { decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { acme, other } from './seeded.js'
import { expectEach } from '../support/each.js'

const MAGIC = '/api/portal/auth/magic-link'
const VERIFY = '/api/portal/auth/verify'
const INVOICES = '/api/portal/invoices'
const TICKETS = '/api/portal/support/tickets'

/** Magic link, then verify: the portal token of a contact. */
async function portalSignIn(s: Client, email: string): Promise<string> {
  expect((await s.as(null).post(MAGIC, { email })).status).toBe(200)
  const links = (await s.control.get(`/outbox?kind=magic-link&to=${encodeURIComponent(email)}`)).body.outbox
  const res = await s.as(null).post(VERIFY, { token: links.at(-1).token })
  expect(res.status).toBe(200)
  return res.body.data.token
}

describe.each(runtimes)('client portal through $name', (runtime) => {
  const rt = useSandbox(runtime)

  describe('magic link sign-in', () => {
    it('sends the link to the outbox and verifies it once for a signed token carrying clientId and roles', async () => {
      const s = rt.fresh('portal-link', ADMIN_TOKEN)
      const res = await s.as(null).post(MAGIC, { email: ' Owner@Acme.test ' })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-sandbox-assumed')).toBe('true')
      expect(res.body).toEqual({ status: 'success', message: expect.any(String) })
      const [link] = (await s.control.get('/outbox?kind=magic-link')).body.outbox
      expect(link).toEqual({
        id: expect.any(String),
        kind: 'magic-link',
        to: 'owner@acme.test',
        subject: expect.any(String),
        token: expect.stringMatching(/^mlk_/),
        ref: 'pct_owner',
        at: expect.any(String),
      })

      const verified = await s.as(null).post(VERIFY, { token: link.token })
      expect(verified.status).toBe(200)
      expect(verified.body).toEqual({
        status: 'success',
        data: {
          token: expect.any(String),
          expiresAt: expect.any(String),
          contact: { id: 'pct_owner', email: 'owner@acme.test', clientId: 'cli_acme', roles: ['invoices', 'support'] },
        },
      })
      const claims = decodeJwt(verified.body.data.token)
      expect(claims).toMatchObject({
        kind: 'portal',
        sub: 'pct_owner',
        clientId: 'cli_acme',
        roles: ['invoices', 'support'],
        iss: 'fleet-sandbox',
      })

      const again = await s.as(null).post(VERIFY, { token: link.token })
      expect(again.status).toBe(401)
      expect(again.body.message).toBe('token: the magic link was already used; request a new one')
    })

    it('answers 200 for an unknown address and sends nothing (no enumeration)', async () => {
      const s = rt.fresh('portal-unknown', ADMIN_TOKEN)
      const res = await s.as(null).post(MAGIC, { email: 'nobody@acme.test' })
      expect(res.status).toBe(200)
      expect((await s.control.get('/outbox')).body.outbox).toEqual([])
    })

    it('expires a link after 15 minutes on the sandbox clock', async () => {
      const s = rt.fresh('portal-expiry', ADMIN_TOKEN)
      await s.as(null).post(MAGIC, { email: 'billing@acme.test' })
      const [link] = (await s.control.get('/outbox?kind=magic-link')).body.outbox
      await s.control.post('/clock', { advanceBy: '16m' })
      const res = await s.as(null).post(VERIFY, { token: link.token })
      expect(res.status).toBe(401)
      expect(res.body.message).toBe('token: the magic link has expired; request a new one')
    })

    it.each([
      [MAGIC, {}, 'email: is required'],
      [MAGIC, { email: 'not-an-address' }, 'email: must be a valid e-mail address'],
      [VERIFY, {}, 'token: is required'],
      [VERIFY, { token: '' }, 'token: must be at least 1 characters'],
    ])('%s %j -> 400', async (path, body, message) => {
      const res = await rt.fresh('portal-bad', ADMIN_TOKEN).as(null).post(path, body)
      expect(res.status).toBe(400)
      expect(res.body.message).toBe(message)
    })

    it('refuses an unknown token with 401', async () => {
      const res = await rt.fresh('portal-bad-token', ADMIN_TOKEN).as(null).post(VERIFY, { token: 'mlk_nope' })
      expect(res.status).toBe(401)
      expect(res.body.message).toBe('token: unknown magic link; request a new one')
    })
  })

  describe('invoices (role invoices)', () => {
    it('lists the client published and paid invoices with their DTE, never drafts', async () => {
      const s = rt.fresh('portal-invoices', ADMIN_TOKEN)
      const portal = s.as(await portalSignIn(s, 'billing@acme.test'))
      const res = await portal.get(INVOICES)
      expect(res.status).toBe(200)
      expect(res.headers.get('x-sandbox-assumed')).toBe('true')
      const { items, pagination } = res.body.data
      expect(pagination.total).toBe(13)
      expectEach(items, (i: { status: string }) => i.status !== 'draft')
      const pending = items.find((i: { id: string }) => i.id === acme.pending)
      expect(pending.dte).toEqual({ id: 'dte_acme_1011', folio: 1011, local_status: 'SII_PENDING' })
      expect(items.find((i: { id: string }) => i.id === acme.noDte).dte).toBeNull()
      expectEach(
        (await portal.get(`${INVOICES}?status=paid`)).body.data.items,
        (i: { status: string }) => i.status === 'paid',
      )
      expect((await portal.get(`${INVOICES}?status=draft`)).status).toBe(400)

      expect((await portal.get(`${INVOICES}/${acme.paid}`)).body.data).toMatchObject({ id: acme.paid, status: 'paid' })
      expect((await portal.get(`${INVOICES}/${acme.drafts[0]}`)).status).toBe(404)
      expect((await portal.get(`${INVOICES}/inv_acme_9999`)).status).toBe(404)
    })

    it("answers 403 for another client's invoice (spec rule 5)", async () => {
      const s = rt.fresh('portal-tenant', ADMIN_TOKEN)
      const portal = s.as(await portalSignIn(s, 'owner@acme.test'))
      const res = await portal.get(`${INVOICES}/${other.paid}`)
      expect(res.status).toBe(403)
      expect(res.body.message).toBe(`clientId: invoice ${other.paid} does not belong to the client of the portal token`)
    })

    it('refuses a contact without the invoices role with 403', async () => {
      const s = rt.fresh('portal-role', ADMIN_TOKEN)
      const support = s.as(await portalSignIn(s, 'support@acme.test'))
      const res = await support.get(INVOICES)
      expect(res.status).toBe(403)
      expect(res.body.message).toBe('role: the contact needs the functional role "invoices"')
      expect((await support.get(`${INVOICES}/${acme.paid}`)).status).toBe(403)
    })
  })

  describe('support tickets (role support)', () => {
    it('lists the client tickets and opens a new one as the contact', async () => {
      const s = rt.fresh('portal-tickets', ADMIN_TOKEN)
      const portal = s.as(await portalSignIn(s, 'support@acme.test'))
      const before = (await portal.get(TICKETS)).body.data
      expect(before.items.length).toBeGreaterThan(0)
      expect(Object.keys(before.items[0]).sort()).toEqual(['body', 'contactId', 'createdAt', 'id', 'status', 'subject'])

      const created = await portal.post(TICKETS, {
        subject: 'Camión sin señal',
        body: 'El equipo del camión KXBT42 no reporta desde las 8:00.',
      })
      expect(created.status).toBe(201)
      expect(created.body.data).toMatchObject({ contactId: 'pct_support', status: 'open', subject: 'Camión sin señal' })
      const after = (await portal.get(TICKETS)).body.data
      expect(after.pagination.total).toBe(before.pagination.total + 1)
      expect(after.items[0].id).toBe(created.body.data.id)
      expect((await portal.get(`${TICKETS}/${created.body.data.id}`)).body.data).toEqual(created.body.data)
      expectEach(
        (await portal.get(`${TICKETS}?status=open`)).body.data.items,
        (t: { status: string }) => t.status === 'open',
      )
    })

    it.each([
      [{ body: 'x' }, 'subject: is required'],
      [{ subject: '   ', body: 'x' }, 'subject: is required'],
      [{ subject: 'x', body: 'y'.repeat(5001) }, 'body: must be at most 5000 characters'],
    ])('refuses %j with 400 and creates nothing', async (body, message) => {
      const s = rt.fresh('portal-ticket-bad', ADMIN_TOKEN)
      const portal = s.as(await portalSignIn(s, 'owner@acme.test'))
      const total = (await portal.get(TICKETS)).body.data.pagination.total
      const res = await portal.post(TICKETS, body)
      expect(res.status).toBe(400)
      expect(res.body.message).toBe(message)
      expect((await portal.get(TICKETS)).body.data.pagination.total).toBe(total)
    })

    it("answers 403 for another client's ticket and for a contact without the support role", async () => {
      const s = rt.fresh('portal-ticket-tenant', ADMIN_TOKEN)
      await s.insert('tickets', {
        id: 'tkt_other_1',
        clientId: 'cli_other',
        contactId: 'pct_other',
        subject: 'x',
        body: 'y',
        status: 'open',
        createdAt: '2026-11-01T00:00:00.000Z',
      })
      const owner = s.as(await portalSignIn(s, 'owner@acme.test'))
      expect((await owner.get(`${TICKETS}/tkt_other_1`)).status).toBe(403)
      expect((await owner.get(TICKETS)).body.data.items.some((t: { id: string }) => t.id === 'tkt_other_1')).toBe(false)
      const billing = s.as(await portalSignIn(s, 'billing@acme.test'))
      expect((await billing.get(TICKETS)).status).toBe(403)
      expect((await billing.post(TICKETS, { subject: 'a', body: 'b' })).status).toBe(403)
    })
  })

  describe('the two surfaces stay apart', () => {
    it('a backoffice token (session or API token) opens no portal route (401)', async () => {
      const s = rt.fresh('portal-surfaces', ADMIN_TOKEN)
      for (const token of ['atk_sandbox_admin', await s.signIn('admin@fleet.test')]) {
        const res = await s.as(token).get(INVOICES)
        expect(res.status).toBe(401)
        expect(res.body.message).toBe('authorization: backoffice tokens do not open portal routes')
      }
    })

    it('a portal token opens no backoffice route (401), not even users/me', async () => {
      const s = rt.fresh('portal-surfaces-2', ADMIN_TOKEN)
      const portal = s.as(await portalSignIn(s, 'owner@acme.test'))
      for (const path of [
        '/api/auth/users/me',
        '/api/notifications',
        '/api/v1/billing/invoices',
        '/api/v1/dte/documents',
      ]) {
        expect((await portal.get(path)).status, path).toBe(401)
      }
    })

    it('a portal route without a token is 401; an expired portal token is 401', async () => {
      const s = rt.fresh('portal-expired', ADMIN_TOKEN)
      expect((await s.as(null).get(INVOICES)).status).toBe(401)
      const portal = s.as(await portalSignIn(s, 'owner@acme.test'))
      await s.control.post('/clock', { advanceBy: '13h' })
      const res = await portal.get(INVOICES)
      expect(res.status).toBe(401)
      expect(res.body.message).toBe('authorization: the token has expired')
    })
  })
})
