import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, client, freshId, type Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const setup = (c: Client, state: string, params: unknown) =>
  c.control.post('/pact/states', { state, params, action: 'setup' })

/** A notification as the world holds it (the API lists them only). */
const note = async (c: Client, id: string) =>
  (await c.control.get('/snapshot')).body.notifications.find((n: { id: string }) => n.id === id)

/** The world as a snapshot holds it, without what runs on by itself (the clock) or is not the world (the journal). */
async function world(c: Client) {
  const { clock: _, journal: __, ...rest } = (await c.control.get('/snapshot')).body
  return rest
}

/**
 * Hostile params of a state: each refused with a 400 naming the field and the rule, decided
 * before anything changes (issue 56 items 1 and 3). Records: the rules of the records they set.
 */
async function hostile(c: Client) {
  const notification = (await c.get('/api/notifications?limit=1')).body.data.notifications[0].id
  const invoice = (await c.control.get('/snapshot')).body.invoices[0].id
  return [
    ['a notification exists', { id: notification, status: 'bogus' }, /params\.status: must be one of "unreviewed"/],
    ['a notification exists', { id: 'ntf_new', status: 'bogus' }, /params\.status: must be one of/],
    ['a notification exists', { id: notification, createdAt: 5 }, /params\.createdAt: must be a string/],
    ['a notification exists', { id: notification, alertTrigger: {} }, /params: unknown field alertTrigger/],
    ['an invoice exists', { id: invoice, status: '<script>' }, /params\.status: must be one of "draft"/],
    ['an invoice exists', { id: invoice, balance: -1 }, /params\.balance: must be at least 0/],
    ['a gps detail exists', { id: 'not-a-uuid' }, /params\.id: must be a UUID/],
    ['a subscription plan exists', { id: 'abc' }, /params\.id: must be an integer/],
    ['a subscription plan does not exist', { id: 'abc' }, /params\.id: must be an integer/],
    ['a password reset exists', { id: 'prt_x' }, /params\.userId: is required/],
    ['a layer exists', { id: '' }, /params\.id: /],
    ['a layer exists', { id: 'x'.repeat(129) }, /params\.id: must be at most 128/],
    ['a notification does not exist', { id: 'x'.repeat(129) }, /params\.id: must be 1 to 128 characters/],
  ] as const
}

describe.each(runtimes)('provider states through $name: a refused state changes nothing', (runtime) => {
  const rt = useSandbox(runtime)

  it('params the records refuse: a 400 naming params.<field> and the rule, the world as it was', async () => {
    const c = await rt.isolated()
    // A world that is not the seeded one: a reset would show.
    const layer = (await c.get('/api/layers')).body.data[0].id
    expect((await c.send('DELETE', `/api/layers/${layer}`)).status).toBe(200)
    const cases = await hostile(c)
    const before = await world(c)
    for (const [state, params, message] of cases) {
      const res = await setup(c, state, params)
      expect(res.status, `${state} ${JSON.stringify(params)}: ${await res.text()}`).toBe(400)
      expect(res.body.message, state).toMatch(message)
    }
    expect(await world(c)).toEqual(before)
    // Its own snapshot still restores: no state wrote a record the schema refuses.
    const snapshot = (await c.control.get('/snapshot')).body
    const restored = await c.control.put('/snapshot', snapshot)
    expect(restored.status, await restored.text()).toBe(200)
  })

  it('a notification that must not exist is taken out, as a record of any collection', async () => {
    const c = client(rt, { sandbox: freshId('state-gone'), token: ADMIN_TOKEN })
    // The seeded world's count: the setup after this request begins from the seed.
    const { notifications, pagination, unreviewedCount } = (await c.get('/api/notifications?status=unreviewed')).body
      .data
    const id = notifications[0].id
    expect((await setup(c, 'a notification does not exist', { id })).status).toBe(200)
    expect(await note(c, id)).toBeUndefined()
    expect((await c.send('PATCH', `/api/notifications/${id}`, { status: 'reviewed' })).status).toBe(404)
    const after = (await c.get('/api/notifications?status=unreviewed')).body.data
    expect(after.pagination.total).toBe(pagination.total - 1)
    expect(after.unreviewedCount).toBe(unreviewedCount - 1)
  })

  it('params within the rules set the record; the next interaction starts from the seeded world', async () => {
    const c = client(rt, { sandbox: freshId('state-ok'), token: ADMIN_TOKEN })
    const id = (await c.get('/api/notifications?limit=1&status=unreviewed')).body.data.notifications[0].id
    const res = await setup(c, 'a notification exists', { id, status: 'false_positive' })
    expect(res.status, await res.text()).toBe(200)
    expect((await note(c, id)).status).toBe('false_positive')
    // Made from another: a new id, a valid record.
    expect((await setup(c, 'a notification exists', { id: 'ntf_made', status: 'reviewed' })).status).toBe(200)
    expect((await note(c, 'ntf_made')).status).toBe('reviewed')
    expect((await setup(c, 'a subscription plan exists', { id: '1' })).status).toBe(200)
    // A plan's id is a number: "1" is plan 1.
    expect((await setup(c, 'a subscription plan does not exist', { id: 1 })).status).toBe(200)
    // The verifier's teardown ends the interaction: the next setup begins from the seed.
    expect((await c.control.post('/pact/states', { state: 'a notification exists', action: 'teardown' })).status).toBe(
      200,
    )
    expect((await setup(c, 'a signed-in user', { email: 'admin@fleet.test' })).status).toBe(200)
    expect((await note(c, id)).status).toBe('unreviewed')
    expect(await note(c, 'ntf_made')).toBeUndefined()
    const restored = await c.control.put('/snapshot', (await c.control.get('/snapshot')).body)
    expect(restored.status, await restored.text()).toBe(200)
  })

  it('the scenario degraded pinned to the status a pact recorded; a status it never answers is refused', async () => {
    const c = client(rt, { sandbox: freshId('state-degraded'), token: ADMIN_TOKEN })
    const bad = await setup(c, 'the scenario degraded is on', { options: { rate: 1, status: 500 } })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/degraded\.options\.status: must be 502, 503 or 504/)
    expect((await setup(c, 'the scenario degraded is on', { options: { rate: 1, status: 504 } })).status).toBe(200)
    for (let i = 0; i < 3; i++) expect((await c.get('/api/layers')).status).toBe(504)
  })
})

describe.each(runtimes)('a repro bundle after provider states through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('replays into a fresh sandbox: the state setups are where its log begins (issue 56)', async () => {
    const c = client(rt, { sandbox: freshId('state-repro'), token: ADMIN_TOKEN })
    const [id, other] = (await c.get('/api/notifications?limit=2&status=unreviewed')).body.data.notifications.map(
      (n: { id: string }) => n.id,
    )
    expect((await setup(c, 'a signed-in user', { email: 'admin@fleet.test' })).status).toBe(200)
    expect((await setup(c, 'a notification exists', { id: other, status: 'false_positive' })).status).toBe(200)
    expect((await setup(c, 'the scenario slow is on', { options: { ms: 1 } })).status).toBe(200)
    expect((await c.send('PATCH', `/api/notifications/${id}`, { status: 'reviewed' })).status).toBe(200)
    // The state calls are in the journal: what set the world up is seen.
    const paths = (await c.control.get('/requests')).body.requests.map((r: { path: string }) => r.path)
    expect(paths.filter((p: string) => p === '/__sandbox/pact/states').length).toBeGreaterThanOrEqual(3)
    const bundle = await c.control.get('/repro')
    expect(bundle.status, await bundle.text()).toBe(200)
    const replay = client(rt, { sandbox: freshId('state-replayed'), token: ADMIN_TOKEN })
    const replayed = await replay.control.post('/repro', bundle.body)
    expect(replayed.status, await replayed.text()).toBe(200)
    expect((await note(replay, id)).status).toBe('reviewed')
    expect((await note(replay, other)).status).toBe('false_positive')
  })
})
