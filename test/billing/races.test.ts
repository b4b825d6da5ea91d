import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { DTES, INVOICES, acme, inv } from './seeded.js'
import { expectEach } from '../support/each.js'

/** Each race runs this many times, each time in a fresh isolated sandbox. */
const ROUNDS = 20

const statuses = (answers: { status: number }[]) => answers.map((a) => a.status).sort()

/** The invariants that must hold after any interleaving. */
async function checkInvariants(s: Client) {
  const invoices = (await s.get(`${INVOICES}?limit=50`)).body.data.items
  const dtes = (await s.get(`${DTES}?limit=50`)).body.data.items
  for (const i of invoices) {
    expect(i.balance).toBeGreaterThanOrEqual(0)
    expect(i.balance).toBe(i.total - i.payments.reduce((sum: number, p: { amount: number }) => sum + p.amount, 0))
    expect(i.status === 'paid').toBe(i.balance === 0)
    const live = dtes.filter(
      (d: { invoiceId: string; local_status: string }) => d.invoiceId === i.id && d.local_status !== 'SII_REJECTED',
    )
    expect(live.length).toBeLessThanOrEqual(1)
    if (live.length) expect(i.dteId).toBe(live[0].id)
  }
  const folios = dtes.map((d: { folio: number }) => d.folio)
  expect(new Set(folios).size).toBe(folios.length)
  // Never a published invoice after a draft in the sequence.
  const bySequence = [...invoices].sort((a: { sequence: number }, b: { sequence: number }) => a.sequence - b.sequence)
  const firstDraft = bySequence.findIndex((i: { status: string }) => i.status === 'draft')
  if (firstDraft >= 0) expectEach(bySequence.slice(firstDraft), (i: { status: string }) => i.status === 'draft')
}

describe.each(runtimes)('racing requests on one invoice through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it(`double publish: exactly one succeeds (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = rt.fresh('race-publish', ADMIN_TOKEN)
      const answers = await Promise.all([
        s.post(inv(acme.drafts[0], 'publish')),
        s.post(inv(acme.drafts[0], 'publish')),
      ])
      expect(statuses(answers)).toEqual([200, 409])
      await checkInvariants(s)
    }
  })

  it(`publishing two drafts of the sequence at once never publishes the second before the first (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = rt.fresh('race-sequence', ADMIN_TOKEN)
      const [second, first] = await Promise.all([
        s.post(inv(acme.drafts[1], 'publish')),
        s.post(inv(acme.drafts[0], 'publish')),
      ])
      expect(first.status).toBe(200)
      expect([200, 409]).toContain(second.status)
      await checkInvariants(s)
    }
  })

  it(`two payments that together exceed the balance: exactly one succeeds (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = rt.fresh('race-pay', ADMIN_TOKEN)
      const { balance } = (await s.get(inv(acme.unpaidAccepted))).body.data
      const amount = Math.ceil(balance * 0.6)
      const answers = await Promise.all([
        s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount }),
        s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount }),
      ])
      expect(statuses(answers)).toEqual([200, 422])
      expect((await s.get(inv(acme.unpaidAccepted))).body.data.balance).toBe(balance - amount)
      await checkInvariants(s)
    }
  })

  it(`two full payments: one pays, the other meets a paid invoice (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = rt.fresh('race-full', ADMIN_TOKEN)
      const { balance } = (await s.get(inv(acme.partlyPaid))).body.data
      const body = { amount: balance }
      const answers = await Promise.all([
        s.post(inv(acme.partlyPaid, 'register-payment'), body),
        s.post(inv(acme.partlyPaid, 'register-payment'), body),
      ])
      expect(statuses(answers)).toEqual([200, 409])
      await checkInvariants(s)
    }
  })

  it(`double (and triple) emission: exactly one DTE, one folio, one upload (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = rt.fresh('race-emit', ADMIN_TOKEN)
      const answers = await Promise.all([
        s.post(inv(acme.noDte, 'emit-dte')),
        s.post(inv(acme.noDte, 'emit-dte')),
        s.post(inv(acme.rejected, 'emit-dte')),
      ])
      expect(statuses(answers.slice(0, 2))).toEqual([200, 409])
      expect(answers[2].status).toBe(200)
      const uploads = (await s.control.get('/outbox?kind=sii-upload')).body.outbox
      expect(uploads).toHaveLength(2)
      expect(new Set(uploads.map((u: { ref: string }) => u.ref)).size).toBe(2)
      await checkInvariants(s)
    }
  })

  it(`emission racing a sync and a payment keeps every invariant (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const s = rt.fresh('race-mixed', ADMIN_TOKEN)
      const pendingDte = (await s.get(inv(acme.pending))).body.data.dteId
      const { balance } = (await s.get(inv(acme.pending))).body.data
      const answers = await Promise.all([
        s.post(inv(acme.pending, 'emit-dte')),
        s.post(`${DTES}/${pendingDte}/sync`),
        s.post(inv(acme.pending, 'register-payment'), { amount: balance }),
        s.post(inv(acme.pending, 'register-payment'), { amount: balance }),
      ])
      // The pending DTE blocks the emission unless the sync settled it first (accepted: still blocked).
      expect(answers[0].status).toBe(409)
      expect(answers[1].status).toBe(200)
      expect(statuses(answers.slice(2))).toEqual([200, 409])
      await checkInvariants(s)
    }
  })
})
