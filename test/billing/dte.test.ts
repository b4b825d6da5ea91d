import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { DTES, acme, inv, other } from './seeded.js'
import { expectEach } from '../support/each.js'

const UNCERTAIN = { 'x-sandbox-scenario': 'dte-upload-uncertain' }
const sync = (s: Client, dteId: string, headers: Record<string, string> = {}) =>
  s.post(`${DTES}/${dteId}/sync`, undefined, headers)
const dte = async (s: Client, dteId: string) => (await s.get(`${DTES}/${dteId}`)).body.data
const uploads = async (s: Client) => (await s.control.get('/outbox?kind=sii-upload')).body.outbox

describe.each(runtimes)('DTE lifecycle through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('emits a DTE (folio, upload, SII_PENDING with a TrackID), syncs it to SII_ACCEPTED and refuses a new emission', async () => {
    const s = rt.fresh('emit', ADMIN_TOKEN)
    const res = await s.post(inv(acme.noDte, 'emit-dte'), {})
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-fault')).toBeNull()
    expect(res.headers.get('x-sandbox-assumed')).toBeNull()
    const d = res.body.data
    expect(d).toEqual({
      id: 'dte_acme_1012',
      invoiceId: acme.noDte,
      folio: 1012,
      TrackID: expect.stringMatching(/^\d{10}$/),
      local_status: 'SII_PENDING',
      references: [],
      payments: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect((await s.get(inv(acme.noDte))).body.data.dteId).toBe(d.id)
    expect(await uploads(s)).toEqual([
      {
        id: expect.any(String),
        kind: 'sii-upload',
        to: 'maullin.sii.cl',
        subject: 'DTE 33 folio 1012 (invoice F-000013)',
        token: d.TrackID,
        ref: d.id,
        at: expect.any(String),
      },
    ])

    const pendingAgain = await s.post(inv(acme.noDte, 'emit-dte'))
    expect(pendingAgain.status).toBe(409)
    expect(pendingAgain.body.message).toBe(
      `local_status: DTE ${d.id} (folio 1012) of invoice ${acme.noDte} is SII_PENDING; acceptance is pending; sync it, a new emission waits until it is settled`,
    )

    const synced = await sync(s, d.id)
    expect(synced.status).toBe(200)
    expect(synced.body.data).toMatchObject({ id: d.id, folio: 1012, TrackID: d.TrackID, local_status: 'SII_ACCEPTED' })
    // A settled DTE syncs to what it is: retries are harmless.
    expect((await sync(s, d.id)).body.data.local_status).toBe('SII_ACCEPTED')

    const acceptedAgain = await s.post(inv(acme.noDte, 'emit-dte'))
    expect(acceptedAgain.status).toBe(409)
    expect(acceptedAgain.body.message).toContain('is SII_ACCEPTED; the tax authority accepted it')
    expect(await uploads(s)).toHaveLength(1)
  })

  it('answers 422 when a DTE precondition is missing, and creates nothing', async () => {
    const s = rt.fresh('preconditions', ADMIN_TOKEN)
    const draft = await s.post(inv(acme.drafts[0], 'emit-dte'))
    expect(draft.status).toBe(422)
    expect(draft.body).toEqual({
      statusCode: 422,
      message: `status: invoice ${acme.drafts[0]} is draft; a DTE needs a published invoice; publish it first`,
      error: 'Unprocessable Entity',
    })

    for (const id of acme.drafts) expect((await s.post(inv(id, 'publish'))).status).toBe(200)
    const noTaxId = await s.post(inv(acme.draftWithoutTaxId, 'emit-dte'))
    expect(noTaxId.status).toBe(422)
    expect(noTaxId.body.message).toBe(
      `receiver.taxId: invoice ${acme.draftWithoutTaxId} has no receiver tax id (RUT); a DTE needs one`,
    )

    // No route writes a line of 0 pesos: set one up in this sandbox.
    await s.insert('invoices', (snapshot) => ({
      ...snapshot.invoices.find((i: { id: string }) => i.id === acme.noDte),
      id: 'inv_acme_zero',
      sequence: 99,
      lines: [{ description: 'Bonificación', quantity: 1, unitPrice: 0 }],
    }))
    const zero = await s.post(inv('inv_acme_zero', 'emit-dte'))
    expect(zero.status).toBe(422)
    expect(zero.body.message).toBe('lines.0.unitPrice: must be positive for a DTE (is 0)')

    expect((await s.get(`${DTES}?limit=50`)).body.data.pagination.total).toBe(11)
    expect(await uploads(s)).toEqual([])
  })

  it('allows a new emission after a rejection, referencing the rejected folio; the old DTE stays rejected', async () => {
    const s = rt.fresh('reemit', ADMIN_TOKEN)
    const old = (await s.get(inv(acme.rejected))).body.data.dteId
    expect((await dte(s, old)).local_status).toBe('SII_REJECTED')
    const res = await s.post(inv(acme.rejected, 'emit-dte'))
    expect(res.status).toBe(200)
    const oldFolio = (await dte(s, old)).folio
    expect(res.body.data).toMatchObject({
      folio: 1012,
      local_status: 'SII_PENDING',
      references: [{ type: '33', folio: oldFolio, reason: 'Reemplaza DTE rechazado por el SII' }],
    })
    expect((await sync(s, res.body.data.id)).body.data.local_status).toBe('SII_ACCEPTED')
    expect((await dte(s, old)).local_status).toBe('SII_REJECTED')
    const both = (await s.get(`${DTES}?invoiceId=${acme.rejected}`)).body.data.items
    expect(both.map((d: { folio: number; local_status: string }) => [d.folio, d.local_status])).toEqual([
      [1012, 'SII_ACCEPTED'],
      [oldFolio, 'SII_REJECTED'],
    ])
  })

  it('rejects by the documented rule (receiver with the generic RUT 66.666.666-6), then allows another emission', async () => {
    const s = rt.fresh('rule', ADMIN_TOKEN)
    expect((await s.get(inv(acme.genericReceiver))).body.data.receiver.taxId).toBe('66.666.666-6')
    const first = (await s.post(inv(acme.genericReceiver, 'emit-dte'))).body.data
    expect((await sync(s, first.id)).body.data.local_status).toBe('SII_REJECTED')
    const second = await s.post(inv(acme.genericReceiver, 'emit-dte'))
    expect(second.status).toBe(200)
    expect(second.body.data.folio).toBe(first.folio + 1)
  })

  it('lists and reads DTEs with folio, TrackID, local_status, references and payments; filters; tenants apart', async () => {
    const s = rt.fresh('read', ADMIN_TOKEN)
    const list = await s.get(DTES)
    expect(list.status).toBe(200)
    expect(list.headers.get('x-sandbox-assumed')).toBe('true')
    const items = list.body.data.items
    expect(items.map((d: { folio: number }) => d.folio)).toEqual([
      1011, 1010, 1009, 1008, 1007, 1006, 1005, 1004, 1003, 1002, 1001,
    ])
    expect(Object.keys(items[0]).sort()).toEqual([
      'TrackID',
      'createdAt',
      'folio',
      'id',
      'invoiceId',
      'local_status',
      'payments',
      'references',
      'updatedAt',
    ])
    const pending = (await s.get(`${DTES}?local_status=SII_PENDING`)).body.data.items
    expect(pending.map((d: { invoiceId: string }) => d.invoiceId)).toEqual([acme.pending])
    const paidInvoice = (await s.get(inv(acme.paid))).body.data
    const paidDte = await dte(s, paidInvoice.dteId)
    expect(paidDte.payments).toEqual(paidInvoice.payments)
    expect(paidDte.local_status).toBe('SII_ACCEPTED')

    const theirs = (await s.as(await s.signIn('admin@other.test')).get(DTES)).body.data.items
    expectEach(theirs, (d: { folio: number }) => d.folio >= 20001)
    expect((await s.get(`${DTES}/${theirs[0].id}`)).status).toBe(404)
    expect((await sync(s, theirs[0].id)).status).toBe(404)
    expect((await s.get(`${DTES}?local_status=SII_LOST`)).status).toBe(400)
    expect((await s.get(`${DTES}/dte%20bad`)).status).toBe(400)
  })

  describe('dte-upload-uncertain', () => {
    it('walks the whole story: emit -> 504 -> SII_UPLOAD_UNCERTAIN with its folio -> re-emit 409 -> sync 422 -> resolve -> accepted, folio kept', async () => {
      const s = rt.fresh('uncertain', ADMIN_TOKEN)
      const emitted = await s.post(inv(acme.noDte, 'emit-dte'), {}, UNCERTAIN)
      expect(emitted.status).toBe(504)
      expect(emitted.headers.get('x-sandbox-fault')).toBe('dte-upload-uncertain')
      expect(emitted.body).toMatchObject({ statusCode: 504, error: 'Gateway Timeout' })

      // The caller checks state before retrying (retry rule 3): the DTE exists, uncertain.
      const dteId = (await s.get(inv(acme.noDte))).body.data.dteId
      const d = await dte(s, dteId)
      expect(d).toMatchObject({ folio: 1012, TrackID: null, local_status: 'SII_UPLOAD_UNCERTAIN' })
      expect(await uploads(s)).toMatchObject([{ kind: 'sii-upload', token: null, ref: dteId }])

      for (const headers of [{}, UNCERTAIN]) {
        const again = await s.post(inv(acme.noDte, 'emit-dte'), {}, headers)
        expect(again.status).toBe(409)
        expect(again.body.message).toContain(
          'is SII_UPLOAD_UNCERTAIN; its upload outcome is uncertain; reconcile it with the tax authority before any new emission',
        )
      }
      const synced = await sync(s, dteId)
      expect(synced.status).toBe(422)
      expect(synced.body.message).toBe(
        `local_status: DTE ${dteId} (folio 1012) is SII_UPLOAD_UNCERTAIN; it has no TrackID, so sync cannot settle it; only reconciliation with the tax authority does (POST /__sandbox/dte/{dteId}/resolve)`,
      )
      expect(await dte(s, dteId)).toEqual(d)

      const resolved = await s.control.post(`/dte/${dteId}/resolve`, { outcome: 'accepted' })
      expect(resolved.status).toBe(200)
      expect(resolved.body.dte).toMatchObject({
        id: dteId,
        folio: 1012,
        local_status: 'SII_ACCEPTED',
        TrackID: expect.stringMatching(/^\d{10}$/),
      })
      expect(await dte(s, dteId)).toMatchObject({ folio: 1012, local_status: 'SII_ACCEPTED' })
      expect((await s.control.post(`/dte/${dteId}/resolve`, { outcome: 'rejected' })).status).toBe(409)
      expect(await uploads(s)).toHaveLength(1)
    })

    it.each([
      [500, 'Internal Server Error'],
      [200, undefined],
    ])('answers %i with option response, the DTE uncertain either way', async (status, error) => {
      const s = rt.fresh('uncertain-option', ADMIN_TOKEN)
      const set = await s.control.put('/scenarios', {
        active: [{ name: 'dte-upload-uncertain', options: { response: status } }],
      })
      expect(set.status).toBe(200)
      const res = await s.post(inv(acme.noDte, 'emit-dte'))
      expect(res.status).toBe(status)
      expect(res.headers.get('x-sandbox-fault')).toBe('dte-upload-uncertain')
      if (error) expect(res.body.error).toBe(error)
      else expect(res.body.data).toMatchObject({ folio: 1012, TrackID: null, local_status: 'SII_UPLOAD_UNCERTAIN' })
      expect((await s.get(`${DTES}?local_status=SII_UPLOAD_UNCERTAIN`)).body.data.items).toHaveLength(1)
    })

    it('refuses a response option it does not know', async () => {
      const s = rt.fresh('uncertain-bad', ADMIN_TOKEN)
      const res = await s.control.put('/scenarios', {
        active: [{ name: 'dte-upload-uncertain', options: { response: 418 } }],
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain('dte-upload-uncertain.options.response: must be 504, 500 or 200')
    })

    it('the uncertain DTE can also be resolved as rejected, which opens a new emission', async () => {
      const s = rt.fresh('uncertain-rejected', ADMIN_TOKEN)
      await s.post(inv(acme.noDte, 'emit-dte'), {}, UNCERTAIN)
      const dteId = (await s.get(inv(acme.noDte))).body.data.dteId
      expect((await s.control.post(`/dte/${dteId}/resolve`, { outcome: 'rejected' })).body.dte).toMatchObject({
        folio: 1012,
        local_status: 'SII_REJECTED',
      })
      const again = await s.post(inv(acme.noDte, 'emit-dte'))
      expect(again.body.data).toMatchObject({ folio: 1013, local_status: 'SII_PENDING', references: [{ folio: 1012 }] })
    })
  })

  describe('dte-pending', () => {
    it('reports pending pendingSyncs times, then the outcome; no re-emission while pending', async () => {
      const s = rt.fresh('pending', ADMIN_TOKEN)
      await s.control.put('/scenarios', {
        active: [{ name: 'dte-pending', options: { pendingSyncs: 3, outcome: 'rejected' } }],
      })
      const d = (await s.post(inv(acme.noDte, 'emit-dte'))).body.data
      expect(d).toMatchObject({ local_status: 'SII_PENDING', TrackID: expect.stringMatching(/^\d{10}$/) })
      for (let i = 0; i < 3; i++) {
        const res = await sync(s, d.id)
        expect(res.body.data.local_status).toBe('SII_PENDING')
        expect(res.headers.get('x-sandbox-fault')).toBe('dte-pending')
        expect((await s.post(inv(acme.noDte, 'emit-dte'))).status).toBe(409)
      }
      expect((await sync(s, d.id)).body.data).toMatchObject({
        local_status: 'SII_REJECTED',
        folio: d.folio,
        TrackID: d.TrackID,
      })
      expect((await s.post(inv(acme.noDte, 'emit-dte'))).status).toBe(200)
    })

    it('defaults to two pending answers, then accepted (scenario per request)', async () => {
      const s = rt.fresh('pending-default', ADMIN_TOKEN)
      const header = { 'x-sandbox-scenario': 'dte-pending' }
      const dteId = (await s.get(inv(acme.pending))).body.data.dteId
      const answers = []
      for (let i = 0; i < 4; i++) answers.push((await sync(s, dteId, header)).body.data.local_status)
      expect(answers).toEqual(['SII_PENDING', 'SII_PENDING', 'SII_ACCEPTED', 'SII_ACCEPTED'])
    })
  })

  describe('the control route that resolves', () => {
    it('settles a pending DTE keeping its folio and TrackID', async () => {
      const s = rt.fresh('resolve', ADMIN_TOKEN)
      const dteId = (await s.get(inv(acme.pending))).body.data.dteId
      const before = await dte(s, dteId)
      const res = await s.control.post(`/dte/${dteId}/resolve`, { outcome: 'rejected' })
      expect(res.body.dte).toMatchObject({ folio: before.folio, TrackID: before.TrackID, local_status: 'SII_REJECTED' })
    })

    it.each([
      ['dte_acme_9999', { outcome: 'accepted' }, 404, 'dteId: no DTE with id dte_acme_9999'],
      ['dte_acme_1011', { outcome: 'maybe' }, 400, 'outcome: must be one of "accepted", "rejected"'],
      ['dte_acme_1011', {}, 400, 'outcome: is required'],
      [
        'dte_acme_1001',
        { outcome: 'accepted' },
        409,
        'local_status: DTE dte_acme_1001 (folio 1001) is SII_ACCEPTED; the tax authority already settled it',
      ],
    ])('%s %j -> %i', async (id, body, status, message) => {
      const s = rt.fresh('resolve-bad', ADMIN_TOKEN)
      const res = await s.control.post(`/dte/${id}/resolve`, body)
      expect(res.status).toBe(status)
      expect(res.body.message).toBe(message)
    })
  })

  it('keeps folios unique per client and in its range across many emissions', async () => {
    const s = rt.fresh('folios', ADMIN_TOKEN)
    const them = s.as(await s.signIn('admin@other.test'))
    const mine = (await s.post(inv(acme.noDte, 'emit-dte'))).body.data.folio
    const theirs = (await them.post(inv(other.noDte, 'emit-dte'))).body.data.folio
    expect([mine, theirs]).toEqual([1012, 20006])
  })
})
