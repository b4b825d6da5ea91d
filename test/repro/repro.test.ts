import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { INVOICES, acme, inv } from '../billing/seeded.js'

/** A snapshot as a replay must rebuild it: the journal (the replay's own requests), sessions and the signing key left out, minted tokens by their order. */
function comparable(snapshot: Record<string, any>): Record<string, unknown> {
  const { journal: _j, sessions: _s, signingKey: _k, clock, ...rest } = snapshot
  const seen = new Map<string, number>()
  const text = JSON.stringify({ ...rest, clock: clock.frozen ? clock : { frozen: false } }).replace(/(mlk|prt)_[0-9a-f]{32}/g, (t) => `<minted ${seen.get(t) ?? seen.set(t, seen.size).size - 1}>`)
  return JSON.parse(text)
}

/** A flow with every kind of step: writes as several accounts, a minted token quoted, clock, scenario, override, control write, outbox cleared. */
async function flow(s: Client): Promise<void> {
  const ok = async (p: Promise<{ status: number; text(): Promise<string> }>) => {
    const res = await p
    expect(res.status, await res.text()).toBeLessThan(300)
  }
  await ok(s.post(inv(acme.drafts[0], 'publish')))
  await ok(s.post(inv(acme.noDte, 'emit-dte'), {}))
  await ok(s.control.post('/clock', { advanceBy: '2h' }))
  await ok(s.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 1000, date: '2026-11-20', method: 'card' }))
  await ok(s.as(ADMIN_TOKEN).post(inv(acme.drafts[1], 'publish')))
  await ok(s.as(null).post('/api/portal/auth/magic-link', { email: 'owner@acme.test' }))
  const link = (await s.outbox('kind=magic-link')).at(-1)
  const verified = await s.as(null).post('/api/portal/auth/verify', { token: link.token })
  expect(verified.status).toBe(200)
  await ok(s.as(verified.body.data.token).post('/api/portal/support/tickets', { subject: 'Factura', body: 'No veo el DTE' }))
  await s.scenarios(['dte-pending'])
  await ok(s.control.post('/overrides', { match: { method: 'GET', path: INVOICES }, respond: { status: 503, body: { message: 'down' } }, times: 1 }))
  expect((await s.get(INVOICES)).status).toBe(503)
  await ok(s.control.send('DELETE', '/outbox'))
  const emitted = await s.post(inv(acme.drafts[1], 'emit-dte'), {})
  expect(emitted.status, await emitted.text()).toBeLessThan(300)
  await ok(s.control.post(`/dte/${emitted.body.data.id}/resolve`, { outcome: 'accepted' }))
}

describe.each(runtimes)('repro bundles through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('a bundle replayed into a fresh sandbox rebuilds the same snapshot', async () => {
    const a = await rt.isolated()
    await flow(a)
    const bundle = (await a.control.get('/repro'))
    expect(bundle.status, await bundle.text()).toBe(200)
    const text = JSON.stringify(bundle.body)
    // No token, cookie or password: the account each write acted as, by id.
    expect(text.match(/ses_[0-9a-f]{8}|mlk_[0-9a-f]{8}|atk_sandbox|eyJ[\w-]{10}|"authorization"|"cookie"|"password"/gi) ?? []).toEqual([])
    expect(text).toMatch(/\{\{minted:\d+\}\}/)
    const b = rt.fresh('replayed', ADMIN_TOKEN)
    const replayed = await b.control.post('/repro', bundle.body)
    expect(replayed.status, await replayed.text()).toBe(200)
    expect(replayed.body).toMatchObject({ replayed: bundle.body.requests.length, digest: bundle.body.end.digest })
    expect(comparable((await b.control.get('/snapshot')).body)).toEqual(comparable((await a.control.get('/snapshot')).body))
    // The replayed world makes the same bundle again.
    const again = (await b.control.get('/repro')).body
    expect(again.end.parts).toEqual(bundle.body.end.parts)
    expect(again.requests).toEqual(bundle.body.requests)
  })
})
