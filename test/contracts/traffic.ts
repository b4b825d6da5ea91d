import { expect } from 'vitest'
import { type Client, PASSWORD } from '../support/client.js'
import { bytes, form } from '../operations/uploads.js'

/**
 * What a team's app does in a day, refusals included: sign-ins that work and one that does not,
 * reads, a review, deletes (the second a 404), an invoice published, emitted, emitted again (409)
 * and published again (409), a payment above the balance, a password reset and a portal magic
 * link redeemed, a reply on a closed thread, a 429 of `rate-limited` followed by ordinary
 * requests, `degraded` reads answered 5xx at random, a photo uploaded to a visit (bytes no text holds).
 */
export async function variedTraffic(c: Client): Promise<void> {
  const anonymous = c.as(null)
  const expectStatus = async (res: Promise<{ status: number; text(): Promise<string> }>, status: number) => {
    const r = await res
    expect(r.status, await r.text()).toBe(status)
  }
  await expectStatus(
    anonymous.post('/api/session-auth/sign-in/email', { email: 'operator@fleet.test', password: 'wrong-password' }),
    401,
  )
  await expectStatus(
    anonymous.post('/api/session-auth/sign-in/email', { email: 'viewer@fleet.test', password: PASSWORD }),
    200,
  )
  await expectStatus(c.get('/api/auth/users/me'), 200)
  const list = await c.get('/api/notifications?status=unreviewed&limit=2')
  const note = list.body.data.notifications[0].id
  await expectStatus(c.send('PATCH', `/api/notifications/${note}`, { status: 'reviewed' }), 200)
  await expectStatus(c.send('PATCH', `/api/notifications/${note}`, { status: 'bogus' }), 400)
  await expectStatus(c.get('/api/notifications', { 'x-sandbox-scenario': 'rate-limited' }), 429)
  const layer = (await c.get('/api/layers')).body.data[0].id
  await expectStatus(c.send('DELETE', `/api/layers/${layer}`), 200)
  await expectStatus(c.send('DELETE', `/api/layers/${layer}`), 404)
  const invoices = (await c.control.get('/snapshot')).body.invoices as {
    id: string
    status: string
    clientId: string
  }[]
  const draft = invoices.find((i) => i.status === 'draft' && i.clientId === 'cli_acme')!
  const base = `/api/v1/billing/invoices/${draft.id}`
  await expectStatus(c.post(`${base}/emit-dte`, {}), 422)
  await expectStatus(c.post(`${base}/publish`, {}), 200)
  await expectStatus(c.post(`${base}/emit-dte`, {}), 200)
  await expectStatus(c.post(`${base}/emit-dte`, {}), 409)
  await expectStatus(c.post(`${base}/publish`, {}), 409)
  await expectStatus(c.post(`${base}/register-payment`, { amount: 999_999_999 }), 422)
  await expectStatus(c.get(base), 200)
  const visit = (await c.get('/api/v1/visit_detail/list')).body.data[0].id
  await expectStatus(
    c.upload(`/api/v1/visit_detail/upload/${visit}`, form([bytes.png(), 'image/png', 'rueda.png'])),
    201,
  )
  const threads = (await c.control.get('/snapshot')).body.threads as { id: string; status: string; clientId: string }[]
  const closed = threads.find((t) => t.status === 'closed' && t.clientId === 'cli_acme')
  if (closed) await c.post('/api/omnichannel/send', { threadId: closed.id, text: 'hello' })
  await expectStatus(anonymous.post('/api/auth/password-reset/request', { email: 'operator@fleet.test' }), 200)
  const outbox = (await c.control.get('/outbox')).body
  const reset = (outbox.outbox ?? outbox.entries ?? outbox).findLast(
    (e: { kind: string }) => e.kind === 'password-reset',
  )
  await expectStatus(
    anonymous.post('/api/auth/password-reset/confirm', { token: reset.token, password: 'a-new-password-1' }),
    200,
  )
  await expectStatus(
    anonymous.post('/api/auth/password-reset/confirm', { token: reset.token, password: 'a-new-password-1' }),
    400,
  )
  const contacts = (await c.control.get('/snapshot')).body.portalContacts as { email: string; clientId: string }[]
  const contact = contacts.find((p) => p.clientId === 'cli_acme')!
  await expectStatus(anonymous.post('/api/portal/auth/magic-link', { email: contact.email }), 200)
  const links = (await c.control.get('/outbox')).body
  const link = (links.outbox ?? links.entries ?? links).findLast((e: { kind: string }) => e.kind === 'magic-link')
  const verified = await anonymous.post('/api/portal/auth/verify', { token: link.token })
  expect(verified.status, await verified.text()).toBe(200)
  const portal = c.as(verified.body.token ?? verified.body.data?.token)
  await expectStatus(portal.get('/api/portal/invoices'), 200)
  // Degraded reads: some answered 502, 503 or 504 (seeded), the rest as usual.
  for (let i = 0; i < 6; i++) await c.get('/api/vehicle-types', { 'x-sandbox-scenario': 'degraded' })
  await expectStatus(c.get('/api/layers'), 200)
}
