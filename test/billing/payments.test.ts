import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN } from '../support/client.js'
import { NOW, runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { DTES, acme, inv } from './seeded.js'

describe.each(runtimes)('payments through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('pays in two parts: each recorded on the invoice and its DTE; the full balance marks it paid; more is 409', async () => {
    const s = rt.fresh('two-parts', ADMIN_TOKEN)
    const dteId = (await s.get(inv(acme.unpaidAccepted))).body.data.dteId
    const { total } = (await s.get(inv(acme.unpaidAccepted))).body.data
    const first = Math.floor(total / 3)

    const part = await s.post(inv(acme.unpaidAccepted, 'register-payment'), {
      amount: first,
      date: '2026-11-20',
      method: 'card',
    })
    expect(part.status).toBe(200)
    expect(part.body.data).toMatchObject({
      status: 'published',
      balance: total - first,
      payments: [{ amount: first, date: '2026-11-20', method: 'card', id: expect.stringMatching(/^pay_/) }],
    })

    const rest = await s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: total - first })
    expect(rest.status).toBe(200)
    expect(rest.body.data).toMatchObject({ status: 'paid', balance: 0 })
    // Defaults: today on the sandbox clock, by transfer.
    expect(rest.body.data.payments[1]).toMatchObject({
      amount: total - first,
      date: NOW.slice(0, 10),
      method: 'transfer',
    })

    const d = (await s.get(`${DTES}/${dteId}`)).body.data
    expect(d.payments).toEqual(rest.body.data.payments)

    const more = await s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 1 })
    expect(more.status).toBe(409)
    expect(more.body.message).toBe(`status: invoice ${acme.unpaidAccepted} is paid; it is fully paid; its balance is 0`)
  })

  it('refuses an amount above the balance with 422 and changes nothing', async () => {
    const s = rt.fresh('above', ADMIN_TOKEN)
    const before = (await s.get(inv(acme.partlyPaid))).body.data
    const res = await s.post(inv(acme.partlyPaid, 'register-payment'), { amount: before.balance + 1 })
    expect(res.status).toBe(422)
    expect(res.body.message).toBe(
      `amount: ${before.balance + 1} is above the balance of ${acme.partlyPaid} (${before.balance}); a payment must be at most the balance`,
    )
    expect((await s.get(inv(acme.partlyPaid))).body.data).toEqual(before)
    const exact = await s.post(inv(acme.partlyPaid, 'register-payment'), { amount: before.balance })
    expect(exact.body.data).toMatchObject({ status: 'paid', balance: 0 })
  })

  it('needs a published invoice: a draft is 409', async () => {
    const s = rt.fresh('draft', ADMIN_TOKEN)
    const res = await s.post(inv(acme.drafts[0], 'register-payment'), { amount: 1000 })
    expect(res.status).toBe(409)
    expect(res.body.message).toBe(
      `status: invoice ${acme.drafts[0]} is draft; payments need a published invoice; publish it first`,
    )
  })

  it('records a payment on an invoice without a DTE; a later DTE documents it', async () => {
    const s = rt.fresh('before-dte', ADMIN_TOKEN)
    const paid = await s.post(inv(acme.noDte, 'register-payment'), { amount: 1000, method: 'cash' })
    expect(paid.body.data.dteId).toBeNull()
    const d = (await s.post(inv(acme.noDte, 'emit-dte'))).body.data
    expect(d.payments).toEqual(paid.body.data.payments)
  })

  it.each([
    [{ amount: 0 }, 'amount: must be greater than 0'],
    [{ amount: -500 }, 'amount: must be greater than 0'],
    [{ amount: 10.5 }, 'amount: must be an integer number of pesos (CLP)'],
    [{ amount: '1000' }, 'amount: must be a number'],
    [{}, 'amount: is required'],
    [{ amount: 1000, date: '2026-02-30' }, 'date: must be an ISO 8601 date (2026-01-31)'],
    [{ amount: 1000, date: 'yesterday' }, 'date: must be an ISO 8601 date (2026-01-31)'],
    [{ amount: 1000, method: 'bitcoin' }, 'method: must be one of "transfer", "card", "cash", "check"'],
  ])('refuses %j with 400 naming the field, and changes nothing', async (body, message) => {
    const s = rt.fresh('bad', ADMIN_TOKEN)
    const before = (await s.get(inv(acme.noDte))).body.data
    const res = await s.post(inv(acme.noDte, 'register-payment'), body)
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ statusCode: 400, message, error: 'Bad Request' })
    expect((await s.get(inv(acme.noDte))).body.data).toEqual(before)
  })

  it('an unknown invoice is 404 before the amount is looked at', async () => {
    const s = rt.fresh('unknown', ADMIN_TOKEN)
    expect((await s.post(inv('inv_acme_9999', 'register-payment'), { amount: 1 })).status).toBe(404)
  })
})
