import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { INVOICES, acme, inv } from '../billing/seeded.js'
import { comparable, resigned } from './bundles.js'
import { CHANGED_PART } from '../../src/core/sandbox/events.js'
import { WORLD_PARTS } from '../../src/core/sandbox/parts.js'

/**
 * A bundle made by version 1 (before changes outside a request were `part` steps): a publish, the
 * clock moved, a magic link, a scenario, an override used once, the outbox cleared, the clock
 * frozen, a magic link numbered again from out_1, a DTE emitted; seed 1, small, at runtimes.ts NOW.
 * Written by version 1's GET /__sandbox/repro (commit a4fa1f5). A change to the seeded world
 * changes its digests: then make it anew from a version 2 bundle of the same flow, each part
 * step written back as version 1's kind and resealed (`resigned`).
 */
const V1 = JSON.parse(readFileSync(new URL('./v1-bundle.json', import.meta.url), 'utf8'))

const ok = async (p: Promise<{ status: number; text(): Promise<string> }>) => {
  const res = await p
  expect(res.status, await res.text()).toBeLessThan(300)
}

/** Each change the control API makes, after a write: a clock set, a scenario put, an override added and used, the outbox cleared. */
async function controlChanges(s: Client): Promise<void> {
  await ok(s.post(inv(acme.drafts[0], 'publish')))
  await ok(s.control.post('/clock', { set: '2026-11-23T09:30:00.000Z' }))
  await ok(s.as(null).post('/api/portal/auth/magic-link', { email: 'owner@acme.test' }))
  await s.scenarios(['dte-pending'])
  await ok(
    s.control.post('/overrides', {
      match: { method: 'GET', path: INVOICES },
      respond: { status: 503, body: { message: 'down' } },
      times: 2,
    }),
  )
  expect((await s.get(INVOICES)).status).toBe(503)
  await ok(s.control.send('DELETE', '/outbox'))
  await ok(s.as(null).post('/api/portal/auth/magic-link', { email: 'owner@acme.test' }))
}

it('every part a change outside a request names is one a step carries (not a credential, not the records)', () => {
  for (const [change, key] of Object.entries(CHANGED_PART)) {
    const part = WORLD_PARTS.find((p) => p.key === key)
    expect(part, change).toBeDefined()
    expect(typeof part!.bundle === 'string' && !part!.heavy, `${change}: ${key}`).toBe(true)
  }
})

describe.each(runtimes)('changes outside a request as part steps through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('a clock set, a scenario put, an override added and the outbox cleared are each a part step with its value, and replay to the same world', async () => {
    const a = await rt.isolated()
    await controlChanges(a)
    const bundle = (await a.control.get('/repro')).body
    expect(bundle.version).toBe(2)
    const steps = bundle.requests.filter((r: { kind: string }) => r.kind !== 'request')
    expect(steps.map((r: { part: string }) => r.part)).toEqual(['clock', 'scenarios', 'overrides', 'outbox'])
    expect(steps.every((r: { kind: string }) => r.kind === 'part')).toBe(true)
    // The clock runs on: read just after the set.
    expect(steps[0].value).toEqual({ now: expect.stringMatching(/^2026-11-23T09:30:00\.\d{3}Z$/), frozen: false })
    // A clock step stays small: the clock's value, nothing more.
    expect(JSON.stringify(steps[0]).length).toBeLessThan(150)
    expect(steps[1].value).toEqual([expect.objectContaining({ name: 'dte-pending' })])
    expect(steps[2].value).toEqual([expect.objectContaining({ operation: 'listInvoices', used: 0 })])
    expect(steps[3].value).toEqual([])
    const b = rt.fresh('part-steps', ADMIN_TOKEN)
    const replayed = await b.control.post('/repro', bundle)
    expect(replayed.status, await replayed.text()).toBe(200)
    const snapshot = (await b.control.get('/snapshot')).body
    expect(comparable(snapshot)).toEqual(comparable((await a.control.get('/snapshot')).body))
    // The outbox numbers its next entry after the highest it holds: cleared, it began at out_1 again.
    expect(snapshot.outbox.map((e: { id: string }) => e.id)).toEqual(['out_1'])
  })

  it('a moment of the journal: before the outbox was cleared holds its entry, after it none', async () => {
    const a = await rt.isolated()
    await controlChanges(a)
    const cleared = (await a.control.get('/requests')).body.requests.find(
      (e: { method: string; path: string }) => e.method === 'DELETE' && e.path === '/__sandbox/outbox',
    ).id
    const before = (await a.control.get(`/repro?before=${cleared}`)).body
    expect(before.requests.filter((r: { part?: string }) => r.part === 'outbox')).toEqual([])
    expect(before.end.values.outbox).toHaveLength(1)
    const after = (await a.control.get(`/repro?after=${cleared}`)).body
    expect(after.requests.filter((r: { part?: string }) => r.part === 'outbox')).toHaveLength(1)
    expect(after.end.values.outbox).toEqual([])
    for (const [name, bundle] of [
      ['before-clear', before],
      ['after-clear', after],
    ] as const) {
      const res = await rt.fresh(name, ADMIN_TOKEN).control.post('/repro', bundle)
      expect(res.status, await res.text()).toBe(200)
    }
  })

  it('a part step a journaled request made (an OAuth client registered) is left out of the moment before it', async () => {
    const a = await rt.isolated()
    await ok(a.post(inv(acme.drafts[0], 'publish')))
    const registered = await a.as(null).post('/oauth/register', {
      client_name: 'moments',
      redirect_uris: ['http://127.0.0.1:5173/callback'],
    })
    expect(registered.status, await registered.text()).toBe(201)
    const id = (await a.control.get('/requests')).body.requests.find(
      (e: { path: string }) => e.path === '/oauth/register',
    ).id
    const before = (await a.control.get(`/repro?before=${id}`)).body
    expect(before.requests.filter((r: { part?: string }) => r.part === 'oauth')).toEqual([])
    const after = (await a.control.get(`/repro?after=${id}`)).body
    expect(after.requests.filter((r: { part?: string }) => r.part === 'oauth')).toHaveLength(1)
    for (const [name, bundle] of [
      ['before-register', before],
      ['after-register', after],
    ] as const) {
      const res = await rt.fresh(name, ADMIN_TOKEN).control.post('/repro', bundle)
      expect(res.status, await res.text()).toBe(200)
    }
  })

  it('a scenario put turns on on replay as it did (session-expired expires the sessions a step signed in)', async () => {
    const a = await rt.isolated()
    await ok(a.post(inv(acme.drafts[0], 'publish')))
    await a.scenarios(['session-expired'])
    expect((await a.post(inv(acme.drafts[1], 'publish'))).status).toBe(401)
    const bundle = (await a.control.get('/repro')).body
    expect(bundle.requests.map((r: { kind: string; part?: string }) => r.part ?? r.kind)).toEqual([
      'request',
      'scenarios',
      'request',
    ])
    const replayed = await rt.fresh('expired', ADMIN_TOKEN).control.post('/repro', bundle)
    expect(replayed.status, await replayed.text()).toBe(200)
  })

  it('a bundle of version 1, its changes as steps of their own kinds, still replays', async () => {
    expect(V1.version).toBe(1)
    expect(V1.requests.map((r: { kind: string }) => r.kind)).toEqual(
      expect.arrayContaining(['clock', 'scenarios', 'overrides', 'outbox-cleared']),
    )
    const b = rt.fresh('version-1', ADMIN_TOKEN)
    const replayed = await b.control.post('/repro', V1)
    expect(replayed.status, await replayed.text()).toBe(200)
    expect(replayed.body).toMatchObject({ replayed: V1.requests.length, digest: V1.end.digest })
    const snapshot = (await b.control.get('/snapshot')).body
    // Cleared, the outbox numbered the next magic link out_1 again.
    expect(snapshot.outbox[0]).toMatchObject({ id: 'out_1', kind: 'magic-link' })
    expect(snapshot.clock.frozen).toBe(true)
    expect(snapshot.scenarios).toEqual([expect.objectContaining({ name: 'dte-pending' })])
    expect(snapshot.overrides).toEqual([expect.objectContaining({ used: 1 })])
    // The world it put in place makes bundles of version 2, which rebuild it again.
    const again = (await b.control.get('/repro')).body
    expect(again.version).toBe(2)
    const res = await rt.fresh('version-1-again', ADMIN_TOKEN).control.post('/repro', again)
    expect(res.status, await res.text()).toBe(200)
  })

  it('a part step a bundle cannot carry, or a value its part refuses, is a 400 naming the step and nothing changes', async () => {
    const a = await rt.isolated()
    await controlChanges(a)
    const bundle = (await a.control.get('/repro')).body
    const at = bundle.requests.findIndex((r: { part?: string }) => r.part === 'clock')
    const target = rt.fresh('refused-part', ADMIN_TOKEN)
    const refused = async (edit: (step: Record<string, any>) => void, message: RegExp) => {
      const res = await target.control.post('/repro', await resigned(bundle, (b) => edit(b.requests[at])))
      expect(res.status, await res.text()).toBe(400)
      expect(res.body.message).toMatch(message)
      expect((await target.control.get('/repro')).body.requests).toEqual([])
    }
    await refused(
      (s) => Object.assign(s, { part: 'sessions', value: [] }),
      new RegExp(`^requests\\.${at}\\.part: "sessions" is not a part a step carries \\(seed, clock, `),
    )
    await refused(
      (s) => (s.value = { now: 'yesterday', frozen: false }),
      new RegExp(`^requests\\.${at}\\.value\\.now: must be an ISO 8601 date-time`),
    )
  })
})
