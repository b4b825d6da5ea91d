import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { INVOICES, acme, inv, other } from './seeded.js'
import { expectEach } from '../support/each.js'

describe.each(runtimes)('invoices through $name', (runtime) => {
  const rt = useSandbox(runtime)

  describe('reading', () => {
    it('lists the client invoices newest first in a paginated envelope, marked assumed', async () => {
      const s = rt.fresh('list', ADMIN_TOKEN)
      const res = await s.get(INVOICES)
      expect(res.status).toBe(200)
      expect(res.headers.get('x-sandbox-assumed')).toBe('true')
      expect(res.body.status).toBe('success')
      const { items, pagination } = res.body.data
      expect(pagination).toEqual({ page: 1, limit: 20, total: 16, totalPages: 1 })
      expect(items.map((i: { sequence: number }) => i.sequence)).toEqual([
        16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1,
      ])
      expect(Object.keys(items[0]).sort()).toEqual([
        'balance',
        'clientId',
        'createdAt',
        'dteId',
        'id',
        'lines',
        'number',
        'payments',
        'publishedAt',
        'receiver',
        'sequence',
        'status',
        'total',
      ])
      for (const i of items) {
        expect(i.total).toBe(
          i.lines.reduce(
            (sum: number, l: { quantity: number; unitPrice: number }) => sum + l.quantity * l.unitPrice,
            0,
          ),
        )
        expect(Number.isInteger(i.total) && i.total > 0).toBe(true)
        expect(i.balance).toBe(i.total - i.payments.reduce((sum: number, p: { amount: number }) => sum + p.amount, 0))
      }
    })

    it('filters by status (scalar or repeated), orders oldest first on demand and pages', async () => {
      const s = rt.fresh('filter', ADMIN_TOKEN)
      const drafts = (await s.get(`${INVOICES}?status=draft&order=asc`)).body.data.items
      expect(drafts.map((i: { id: string }) => i.id)).toEqual(acme.drafts)
      expectEach(drafts, (i: { number: null; publishedAt: null }) => i.number === null && i.publishedAt === null)
      const both = (await s.get(`${INVOICES}?status=draft&status=paid`)).body.data.items
      expect(new Set(both.map((i: { status: string }) => i.status))).toEqual(new Set(['draft', 'paid']))
      const page2 = (await s.get(`${INVOICES}?limit=5&page=2`)).body.data
      expect(page2.pagination).toEqual({ page: 2, limit: 5, total: 16, totalPages: 4 })
      expect(page2.items.map((i: { sequence: number }) => i.sequence)).toEqual([11, 10, 9, 8, 7])
    })

    it("reads one invoice; another client's is 404 as a missing one", async () => {
      const s = rt.fresh('get', ADMIN_TOKEN)
      const res = await s.get(inv(acme.paid))
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({
        id: acme.paid,
        sequence: 1,
        status: 'paid',
        balance: 0,
        number: 'F-000001',
      })
      expect(res.body.data.receiver.taxId).toMatch(/^\d{2}\.\d{3}\.\d{3}-[\dK]$/)
      expect((await s.get(inv(other.paid))).status).toBe(404)
      expect((await s.get(inv('inv_nope'))).body).toEqual({
        statusCode: 404,
        message: 'invoice: no invoice with id inv_nope',
        error: 'Not Found',
      })
    })

    it.each([
      ['?status=void', 'status.0: must be one of'],
      ['?limit=0', 'limit: must be at least 1'],
      ['?limit=51', 'limit: must be at most 50'],
      ['?page=0', 'page: must be at least 1'],
      ['?page=abc', 'page: must be an integer'],
      ['?limit=2.5', 'limit: must be an integer'],
      ['?order=sideways', 'order: must be one of'],
    ])('refuses %s with 400 naming the field', async (query, message) => {
      const res = await rt.client(ADMIN_TOKEN, 'default').get(`${INVOICES}${query}`)
      expect(res.status).toBe(400)
      expect(res.body.message).toContain(message)
    })

    it('refuses an id that breaks its pattern with 400', async () => {
      const res = await rt.client(ADMIN_TOKEN, 'default').get(`${INVOICES}/inv.bad%20id`)
      expect(res.status).toBe(400)
      expect(res.body.message).toMatch(/^id: must be 1 to 128 letters/)
    })

    it('answers 405 for a wrong method and 404 for an unknown action, changing nothing', async () => {
      const s = rt.fresh('method', ADMIN_TOKEN)
      const wrong = await s.get(inv(acme.drafts[0], 'publish'))
      expect(wrong.status).toBe(405)
      expect(wrong.headers.get('allow')).toBe('POST')
      expect((await s.send('DELETE', inv(acme.drafts[0]))).status).toBe(405)
      expect((await s.post(inv(acme.drafts[0], 'cancel'))).status).toBe(404)
      expect((await s.get(inv(acme.drafts[0]))).body.data.status).toBe('draft')
    })

    it('needs a token (401)', async () => {
      const s = rt.fresh('anon', ADMIN_TOKEN)
      expect((await s.as(null).get(INVOICES)).status).toBe(401)
    })
  })

  describe('publishing in sequence', () => {
    it('publishes drafts in order, each with its number; out of order and twice are 409; state unchanged', async () => {
      const s = rt.fresh('publish', ADMIN_TOKEN)
      const [first, second, third] = acme.drafts

      const skip = await s.post(inv(second, 'publish'), {})
      expect(skip.status).toBe(409)
      expect(skip.body.message).toBe(
        `sequence: invoice ${first} (sequence 14) comes before ${second} (sequence 15) and is still a draft; publish it first`,
      )
      expect((await s.get(inv(second))).body.data.status).toBe('draft')

      const ok = await s.post(inv(first, 'publish'))
      expect(ok.status).toBe(200)
      expect(ok.body.data).toMatchObject({ id: first, status: 'published', number: 'F-000014' })
      expect(Date.parse(ok.body.data.publishedAt)).toBeGreaterThan(0)

      const twice = await s.post(inv(first, 'publish'), {})
      expect(twice.status).toBe(409)
      expect(twice.body.message).toBe(
        `status: invoice ${first} is published; it was already published; publishing twice is refused`,
      )

      expect((await s.post(inv(second, 'publish'), {})).body.data.number).toBe('F-000015')
      expect((await s.post(inv(third, 'publish'), {})).body.data.number).toBe('F-000016')
      expect((await s.get(`${INVOICES}?status=draft`)).body.data.items).toEqual([])
      expect((await s.post(inv(acme.paid, 'publish'))).status).toBe(409)
    })

    it("keeps clients apart: another client's draft is 404 and its own sequence is independent", async () => {
      const s = rt.fresh('publish-tenant', ADMIN_TOKEN)
      expect((await s.post(inv(other.firstDraft, 'publish'))).status).toBe(404)
      const them = s.as(await s.signIn('admin@other.test'))
      expect((await them.post(inv(other.firstDraft, 'publish'))).body.data.number).toBe('F-000008')
      expect((await s.get(inv(acme.drafts[0]))).body.data.status).toBe('draft')
    })

    it.each([
      ['[1]', 'body: must be a object'],
      ['"x"', 'body: must be a object'],
      ['{bad json', 'body: must be valid JSON'],
    ])('refuses the body %s with 400 and changes nothing', async (body, message) => {
      const s = rt.fresh('publish-bad', ADMIN_TOKEN)
      const res = await s.post(inv(acme.drafts[0], 'publish'), body)
      expect(res.status).toBe(400)
      expect(res.body.message).toContain(message.split(':')[0])
      expect((await s.get(inv(acme.drafts[0]))).body.data.status).toBe('draft')
    })
  })

  describe('send-email', () => {
    it('needs a published invoice (409); each send is one outbox e-mail, so retries show as duplicates', async () => {
      const s = rt.fresh('email', ADMIN_TOKEN)
      const draft = await s.post(inv(acme.drafts[0], 'send-email'), {})
      expect(draft.status).toBe(409)
      expect(draft.body.message).toMatch(
        /^status: invoice inv_acme_0014 is draft; only a published invoice can be sent/,
      )
      expect((await s.control.get('/outbox?kind=email')).body.outbox).toEqual([])

      const receiver = (await s.get(inv(acme.noDte))).body.data.receiver.email
      const one = await s.post(inv(acme.noDte, 'send-email'))
      expect(one.status).toBe(200)
      expect(one.body.data).toMatchObject({ invoiceId: acme.noDte, sent: [{ to: receiver }] })
      await s.post(inv(acme.noDte, 'send-email'), {})
      const many = await s.post(inv(acme.noDte, 'send-email'), {
        to: ['Contabilidad@Example.cl', 'jefe@example.cl', 'contabilidad@example.cl'],
      })
      expect(many.body.data.sent.map((x: { to: string }) => x.to)).toEqual([
        'contabilidad@example.cl',
        'jefe@example.cl',
      ])

      const mails = (await s.control.get('/outbox?kind=email')).body.outbox
      expect(mails.map((m: { to: string }) => m.to)).toEqual([
        receiver,
        receiver,
        'contabilidad@example.cl',
        'jefe@example.cl',
      ])
      expect(mails[0]).toEqual({
        id: one.body.data.sent[0].outboxId,
        kind: 'email',
        to: receiver,
        subject: 'Factura F-000013 de Acme Logistics',
        token: null,
        ref: acme.noDte,
        at: expect.any(String),
      })
      // A paid invoice can still be sent (a copy for the receiver).
      expect((await s.post(inv(acme.paid, 'send-email'))).status).toBe(200)
    })

    it.each([
      [{ to: [] }, 'to: must list at least one address'],
      [{ to: ['not-an-address'] }, 'to.0: must be a valid e-mail address'],
      [{ to: 'a@b.cl' }, 'to: must be an array'],
    ])('refuses %j with 400 and sends nothing', async (body, message) => {
      const s = rt.fresh('email-bad', ADMIN_TOKEN)
      const res = await s.post(inv(acme.noDte, 'send-email'), body)
      expect(res.status).toBe(400)
      expect(res.body.message).toContain(message)
      expect((await s.control.get('/outbox')).body.outbox).toEqual([])
    })
  })

  describe('permissions', () => {
    const writes: [string, string, unknown][] = [
      ['publish', acme.drafts[0], {}],
      ['emit-dte', acme.noDte, {}],
      ['send-email', acme.noDte, {}],
      ['register-payment', acme.noDte, { amount: 1000 }],
    ]

    it.each(['operator@fleet.test', 'viewer@fleet.test'])(
      '%s reads billing but gets 403 on every billing write, with nothing changed',
      async (email) => {
        const s = rt.fresh('perm', ADMIN_TOKEN)
        const user = s.as(await s.signIn(email))
        expect((await user.get(INVOICES)).status).toBe(200)
        expect((await user.get('/api/v1/dte/documents')).status).toBe(200)
        for (const [action, id, body] of writes) {
          const res = await user.post(inv(id, action), body)
          expect(res.status, action).toBe(403)
          expect(res.body.message).toBe('permission: billing:write is required for this operation')
        }
        const dteId = (await s.get(inv(acme.pending))).body.data.dteId
        expect((await user.post(`/api/v1/dte/documents/${dteId}/sync`)).status).toBe(403)
        expect((await s.get(inv(acme.drafts[0]))).body.data.status).toBe('draft')
        expect((await s.get(`/api/v1/dte/documents/${dteId}`)).body.data.local_status).toBe('SII_PENDING')
        expect((await s.control.get('/outbox')).body.outbox).toEqual([])
      },
    )

    it('a portal token opens no billing route (401)', async () => {
      const s = rt.fresh('perm-portal', ADMIN_TOKEN)
      await s.as(null).post('/api/portal/auth/magic-link', { email: 'owner@acme.test' })
      const token = (await s.control.get('/outbox?kind=magic-link')).body.outbox[0].token
      const portal = (await s.as(null).post('/api/portal/auth/verify', { token })).body.data.token
      const res = await s.as(portal).get(INVOICES)
      expect(res.status).toBe(401)
      expect(res.body.message).toBe('authorization: portal tokens do not open backoffice routes')
      expect((await s.as(portal).post(inv(acme.drafts[0], 'publish'))).status).toBe(401)
    })
  })
})
