import { beforeAll, describe, expect, it } from 'vitest'
import { bearer, json, signIn } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

type Snapshot = Record<string, any>

describe.each(runtimes)('snapshot through $name', (runtime) => {
  const rt = useSandbox(runtime)
  let original: Snapshot
  let token: string
  const id = { 'x-sandbox-id': 'snap' }
  const get = async (headers = id): Promise<Snapshot> => (await rt.fetch('/__sandbox/snapshot', { headers })).json()
  const put = (body: unknown, headers = id) =>
    rt.fetch('/__sandbox/snapshot', {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })

  beforeAll(async () => {
    // A lived-in sandbox: a session, a reviewed notification, an outbox entry, a moved and frozen clock, scenarios, a journal.
    token = await signIn(rt, 'admin@fleet.test', id)
    const list = await (await rt.fetch('/api/notifications?status=unreviewed&limit=1', bearer(token, id))).json()
    const target = list.data.notifications[0].id
    await rt.fetch(`/api/notifications/${target}`, {
      method: 'PATCH',
      headers: { ...bearer(token, id).headers, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'false_positive' }),
    })
    await rt.fetch('/api/auth/password-reset/request', json({ email: 'viewer@fleet.test' }, id))
    await rt.fetch('/__sandbox/clock', json({ advanceBy: '2d', freeze: true }, id))
    await rt.fetch('/__sandbox/scenarios', {
      ...json({ active: ['thread-closed', { name: 'session-expired', options: { ttl: 3600 } }] }, id),
      method: 'PUT',
    })
    token = await signIn(rt, 'admin@fleet.test', id)
    original = await get()
  })

  it('is one JSON object keyed by collection name, with sessions, clock, scenarios, journal and outbox', () => {
    for (const key of [
      'version',
      'seed',
      'clock',
      'scenarios',
      'sessions',
      'journal',
      'outbox',
      'notifications',
      'users',
      'clients',
      'passwordResets',
    ])
      expect(original).toHaveProperty(key)
    expect(original.clock.frozen).toBe(true)
    expect(original.scenarios.map((s: { name: string }) => s.name)).toEqual(['thread-closed', 'session-expired'])
    expect(original.sessions.length).toBeGreaterThanOrEqual(3)
    expect(original.outbox).toHaveLength(1)
    expect(original.journal.length).toBeGreaterThanOrEqual(4)
    expect(original.notifications.some((n: { status: string }) => n.status === 'false_positive')).toBe(true)
  })

  it('GET then PUT round-trips exactly', async () => {
    const res = await put(original)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      status: 'ok',
      seed: original.seed,
      now: original.clock.now,
      scenarios: ['thread-closed', 'session-expired'],
    })
    expect(await get()).toEqual(original)
  })

  it('restores into another sandbox: the same records, sessions and clock', async () => {
    const elsewhere = { 'x-sandbox-id': 'snap-copy' }
    expect((await put(original, elsewhere)).status).toBe(200)
    expect(await get(elsewhere)).toEqual(original)
    const me = await rt.fetch('/api/auth/users/me', bearer(token, elsewhere))
    expect(me.status).toBe(200)
    const outbox = await (await rt.fetch('/__sandbox/outbox', { headers: elsewhere })).json()
    expect(outbox.outbox).toEqual(original.outbox)
  })

  const broken: [string, (s: Snapshot) => unknown, string][] = [
    [
      'a bad clock',
      (s) => ({ ...s, clock: { now: 'yesterday', frozen: true } }),
      'clock.now: must be an ISO 8601 date-time',
    ],
    ['a missing collection', ({ users: _, ...s }) => s, 'users: is required'],
    [
      'a wrong type in a record',
      (s) => ({ ...s, users: s.users.map((u: object, i: number) => (i ? u : { ...u, email: 5 })) }),
      'users.0.email: must be a string',
    ],
    [
      'an unknown session kind',
      (s) => ({ ...s, sessions: [{ ...s.sessions[0], kind: 'borrowed' }] }),
      'sessions.0.kind: must be one of',
    ],
    [
      'an unknown outbox kind',
      (s) => ({ ...s, outbox: [{ ...s.outbox[0], kind: 'fax' }] }),
      'outbox.0.kind: must be one of',
    ],
    [
      'an unknown notification status',
      (s) => ({ ...s, notifications: [{ ...s.notifications[0], status: 'done' }] }),
      'notifications.0.status: must be one of',
    ],
    ['a duplicate id', (s) => ({ ...s, users: [s.users[0], s.users[0]] }), 'users.1.id: duplicate id'],
    ['an unknown scenario', (s) => ({ ...s, scenarios: ['teleport'] }), 'scenarios.0: unknown scenario "teleport"'],
    [
      'bad scenario options',
      (s) => ({ ...s, scenarios: [{ name: 'degraded', options: { rate: 3 } }] }),
      'scenarios.0: degraded.options.rate: must be at most 1',
    ],
    ['another version', (s) => ({ ...s, version: 2 }), 'version: must be one of 1'],
    ['an array', () => [], 'body: a snapshot must be a JSON object'],
    ['bad JSON', () => '{"version":', 'body: must be valid UTF-8 JSON'],
    [
      'a journal entry nested 5,000 deep',
      (s) =>
        JSON.stringify({ ...s, journal: [{ id: 1, x: 'DEEP' }] }).replace(
          '"DEEP"',
          `${'['.repeat(5000)}${']'.repeat(5000)}`,
        ),
      'body: must nest at most 100 levels of lists and objects',
    ],
  ]
  it.each(broken)('refuses %s with a 400 naming the field, changing nothing', async (_, mutate, message) => {
    const res = await put(mutate(structuredClone(original)))
    expect(res.status).toBe(400)
    expect((await res.json()).message).toContain(message)
    expect(await get()).toEqual(original)
  })

  it('takes snapshots beyond the 1 MB JSON limit', async () => {
    const big = { ...structuredClone(original), notifications: [...original.notifications] }
    const template = original.notifications[0]
    for (let i = 0; big.notifications.length < 4000; i++)
      big.notifications.push({ ...template, id: 'a' + i.toString(16).padStart(23, '0') })
    const text = JSON.stringify(big)
    expect(text.length).toBeGreaterThan(1_048_576)
    const res = await put(text, { 'x-sandbox-id': 'snap-big' })
    expect(res.status, await res.clone().text()).toBe(200)
    expect((await get({ 'x-sandbox-id': 'snap-big' })).notifications).toHaveLength(4000)
  })
})
