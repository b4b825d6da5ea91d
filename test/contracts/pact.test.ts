import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, client, freshId, type Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { expectEach } from '../support/each.js'
import { type Interaction, replay } from './replay.js'
import { bytes, form } from '../operations/uploads.js'

/** The app's traffic in a world of its own: a sign-in, a list, a review, a 404, a scenario's 429. */
async function traffic(c: Client) {
  const anonymous = c.as(null)
  expect(
    (await anonymous.post('/api/session-auth/sign-in/email', { email: 'admin@fleet.test', password: 'sandbox' }))
      .status,
  ).toBe(200)
  const list = await c.get('/api/notifications?status=unreviewed&limit=2')
  expect(list.status).toBe(200)
  const id = list.body.data.notifications[0].id
  expect((await c.send('PATCH', `/api/notifications/${id}`, { status: 'reviewed' })).status).toBe(200)
  expect((await c.send('PATCH', `/api/notifications/${id}`, { status: 'reviewed' })).status).toBe(200)
  const layers = (await c.get('/api/layers')).body.data
  expect((await c.send('DELETE', `/api/layers/${layers[0].id}`)).status).toBe(200)
  expect((await c.send('DELETE', `/api/layers/${layers[0].id}`)).status).toBe(404)
  expect((await c.get('/api/notifications', { 'x-sandbox-scenario': 'rate-limited' })).status).toBe(429)
  return { id, layer: layers[0].id }
}

describe.each(runtimes)('contracts from the traffic through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('GET /contracts/pact: Pact 4.0, one interaction per operation × scenario × status, states, rules, no credential', async () => {
    const c = await rt.isolated()
    const { id, layer } = await traffic(c)
    const res = await c.control.get('/contracts/pact')
    expect(res.status, await res.text()).toBe(200)
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="fleet-web-fleet-backoffice.json"')
    const pact = res.body
    expect(pact.consumer).toEqual({ name: 'fleet-web' })
    expect(pact.provider).toEqual({ name: 'fleet-backoffice' })
    expect(pact.metadata.pactSpecification).toEqual({ version: '4.0' })
    const byDescription = new Map<string, any>(pact.interactions.map((i: Interaction) => [i.description, i]))
    expect(byDescription.size).toBe(pact.interactions.length)
    expect([...byDescription.keys()].sort()).toEqual(
      [
        'deleteLayer, no scenario, status 200',
        'deleteLayer, no scenario, status 404',
        'listLayers, no scenario, status 200',
        'listNotifications, no scenario, status 200',
        'listNotifications, scenario rate-limited, status 429',
        'signInEmail, no scenario, status 200',
        'updateNotificationStatus, no scenario, status 200',
      ].sort(),
    )
    expectEach(pact.interactions, (i: any) => i.type === 'Synchronous/HTTP' && typeof i.key === 'string')
    const review = byDescription.get('updateNotificationStatus, no scenario, status 200')
    // The first review found it unreviewed: the state says so.
    expect(review.providerStates).toMatchObject([
      { name: 'a signed-in user', params: { email: 'admin@fleet.test' } },
      { name: 'a notification exists', params: { id, status: 'unreviewed' } },
    ])
    expect(review.request).toMatchObject({
      method: 'PATCH',
      path: `/api/notifications/${id}`,
      headers: { authorization: ['Bearer [not kept]'], 'content-type': ['application/json'] },
      body: { content: { status: 'reviewed' } },
    })
    expect(review.request.generators.header.authorization).toEqual({
      type: 'ProviderState',
      expression: 'Bearer ${token}',
      dataType: 'STRING',
    })
    expect(Object.keys(review.request.headers).sort()).toEqual(['authorization', 'content-type'])
    expect(byDescription.get('deleteLayer, no scenario, status 404').providerStates[1]).toEqual({
      name: 'a layer does not exist',
      params: { id: layer },
    })
    // The scenario with the options the request met it with (the header named none: its defaults).
    expect(byDescription.get('listNotifications, scenario rate-limited, status 429').providerStates).toContainEqual({
      name: 'the scenario rate-limited is on',
      params: expect.anything(),
    })
    const list = byDescription.get('listNotifications, no scenario, status 200')
    expect(list.request.query).toEqual({ status: ['unreviewed'], limit: ['2'] })
    expect(list.response.headers['content-type'][0]).toMatch(/^application\/json/)
    expect(list.response.body.content.data.notifications).toHaveLength(1)
    const rules = list.response.matchingRules.body
    expect(rules['$.data.notifications']).toEqual({ combine: 'AND', matchers: [{ match: 'type', min: 1 }] })
    expect(rules['$.data.notifications[*].id'].matchers[0]).toEqual({ match: 'regex', regex: '^[0-9a-f]{24}$' })
    expect(rules['$.data.notifications[*].createdAt'].matchers[0].match).toBe('regex')
    expect(rules['$.data.unreviewedCount'].matchers[0]).toEqual({ match: 'type' })
    const signIn = byDescription.get('signInEmail, no scenario, status 200')
    expect(signIn.providerStates).toEqual([{ name: 'a user can sign in', params: { email: 'admin@fleet.test' } }])
    expect(signIn.request.body.content).toEqual({ email: 'admin@fleet.test', password: '[not kept]' })
    expect(signIn.request.generators.body['$.password'].expression).toBe('${password}')
    // No credential anywhere: not the session token, not the password, not the sandbox id.
    const text = JSON.stringify(pact)
    expect(text).not.toContain(c.token!)
    expect(text).not.toContain('"sandbox"')
    expect(text).not.toContain(c.id!)
    expect(text).not.toMatch(/ses_[0-9a-f]{8}/)
  })

  it('each interaction, its states set up in a fresh world, answers the status of the file', async () => {
    const c = await rt.isolated()
    await traffic(c)
    const pact = (await c.control.get('/contracts/pact')).body
    const headers = { 'x-sandbox-id': freshId('verify') }
    for (const i of pact.interactions as Interaction[])
      expect(await replay(rt, i, headers), i.description).toBe(i.response.status)
    // Overrides first here would have shown as the override's; a fresh world keeps none.
  })

  it("a disabled account's 403 and a wrong password's 401 verify as recorded: the state sets the password only where the answer relied on it", async () => {
    const c = await rt.isolated()
    const anonymous = c.as(null)
    const signIn = (email: string, password: string) =>
      anonymous.post('/api/session-auth/sign-in/email', { email, password })
    expect((await signIn('disabled@fleet.test', 'sandbox')).status).toBe(403)
    expect((await signIn('viewer@fleet.test', 'not-it')).status).toBe(401)
    const pact = (await c.control.get('/contracts/pact')).body
    const byStatus = new Map<number, any>(pact.interactions.map((i: any) => [i.response.status, i]))
    expect(byStatus.get(403).providerStates).toEqual([
      { name: 'a user can sign in', params: { email: 'disabled@fleet.test' } },
    ])
    expect(byStatus.get(403).request.generators.body['$.password'].expression).toBe('${password}')
    expect(byStatus.get(401).request.generators).toBeUndefined()
    for (const i of pact.interactions as Interaction[])
      expect(await replay(rt, i, { 'x-sandbox-id': freshId('verify') }), i.description).toBe(i.response.status)
  })

  it('a request by a session signed out since still names its account as a state (seed 763919179)', async () => {
    const c = await rt.isolated()
    const signed = await c.as(null).post('/api/session-auth/sign-in/email', {
      email: 'viewer@fleet.test',
      password: 'sandbox',
    })
    const token = signed.headers.get('set-auth-token')!
    const viewer = c.as(token)
    expect((await viewer.get('/api/auth/users/me')).status).toBe(200)
    expect((await viewer.post('/api/session-auth/sign-out', {})).status).toBe(200)
    const pact = (await c.control.get('/contracts/pact')).body
    const me = pact.interactions.find((i: Interaction) => i.description.startsWith('getMe'))
    expect(me.providerStates).toEqual([{ name: 'a signed-in user', params: { email: 'viewer@fleet.test' } }])
    for (const i of pact.interactions as Interaction[])
      expect(await replay(rt, i, { 'x-sandbox-id': freshId('verify') }), i.description).toBe(i.response.status)
  })

  it('a 401 to a token that stopped working names an ended session, however it ended (seed 1219450491)', async () => {
    const c = await rt.isolated()
    const signIn = async (email: string) =>
      c.as(
        (await c.as(null).post('/api/session-auth/sign-in/email', { email, password: 'sandbox' })).headers.get(
          'set-auth-token',
        )!,
      )
    const viewer = await signIn('viewer@fleet.test')
    const admin = await signIn('admin@fleet.test')
    // Scoped to one route, the scenario still expires every session as it turns on (docs/your-own-answers.md).
    const on = await c.control.put('/scenarios', {
      active: [{ name: 'session-expired', options: { routes: ['listLayers'] } }],
    })
    expect(on.status, await on.text()).toBe(200)
    expect((await admin.get('/api/auth/users/me')).status).toBe(401)
    expect((await c.control.put('/scenarios', { active: [] })).status).toBe(200)
    const fresh = await signIn('viewer@fleet.test')
    expect((await fresh.post('/api/session-auth/sign-out', {})).status).toBe(200)
    expect((await fresh.get('/api/layers')).status).toBe(401)
    expect((await viewer.get('/api/notifications')).status).toBe(401)
    // A portal token past its 12 hours on the sandbox clock.
    expect((await c.as(null).post('/api/portal/auth/magic-link', { email: 'owner@acme.test' })).status).toBe(200)
    const link = (await c.outbox('kind=magic-link')).at(-1)
    const portal = c.as((await c.as(null).post('/api/portal/auth/verify', { token: link.token })).body.data.token)
    expect((await c.control.post('/clock', { advanceBy: '13h' })).status).toBe(200)
    expect((await portal.get('/api/portal/invoices')).status).toBe(401)
    const pact = (await c.control.get('/contracts/pact')).body
    const ended = (pact.interactions as Interaction[]).filter((i) => i.response.status === 401)
    expect(ended.map((i) => i.description).sort()).toEqual([
      'getMe, no scenario, status 401',
      'listLayers, no scenario, status 401',
      'listNotifications, no scenario, status 401',
      'portalListInvoices, no scenario, status 401',
    ])
    expect(ended.map((i) => i.providerStates?.[0])).toEqual([
      ...['admin', 'viewer', 'viewer'].map((who) => ({
        name: 'a signed-in user whose session has ended',
        params: { email: `${who}@fleet.test` },
      })),
      { name: 'a signed-in portal contact whose token has expired', params: { email: 'owner@acme.test' } },
    ])
    for (const i of pact.interactions as Interaction[])
      expect(await replay(rt, i, { 'x-sandbox-id': freshId('verify') }), i.description).toBe(i.response.status)
  })

  it('the caller is named with the kind of token it sent: service access takes a direct session only (seed 1461660743)', async () => {
    const kinds = [
      {
        token: async () => 'atk_sandbox_admin',
        state: { name: 'a user with an API token', params: { email: 'admin@fleet.test' } },
      },
      {
        token: async (c: Client) => (await c.control.post('/tokens/agent', { email: 'admin@fleet.test' })).body.token,
        state: { name: 'an agent acting for a user', params: { email: 'admin@fleet.test' } },
      },
      {
        token: async () => 'ses_impersonation_operator',
        state: {
          name: 'a user impersonated by another',
          params: { email: 'operator@fleet.test', by: 'admin@fleet.test' },
        },
      },
    ]
    for (const kind of kinds) {
      const c = await rt.isolated()
      const res = await c.as(await kind.token(c)).get('/api/auth/service-access')
      expect(res.status, await res.text()).toBe(403)
      const pact = (await c.control.get('/contracts/pact')).body
      const access = pact.interactions.find((i: Interaction) => i.description.startsWith('getServiceAccess'))
      expect(access.providerStates).toEqual([kind.state])
      for (const i of pact.interactions as Interaction[])
        expect(await replay(rt, i, { 'x-sandbox-id': freshId('verify') }), i.description).toBe(i.response.status)
    }
  })

  it('a world replayed from its bundle still names the callers of signed tokens (seed 166303462)', async () => {
    const c = await rt.isolated()
    expect((await c.as(null).post('/api/portal/auth/magic-link', { email: 'owner@acme.test' })).status).toBe(200)
    const link = (await c.outbox('kind=magic-link')).at(-1)
    const verified = await c.as(null).post('/api/portal/auth/verify', { token: link.token })
    const ticket = await c.as(verified.body.data.token).post('/api/portal/support/tickets', {
      subject: 'Factura',
      body: 'No veo el DTE',
    })
    expect(ticket.status).toBe(201)
    const bundle = await c.control.get('/repro')
    const replayed = await c.control.post('/repro', bundle.body)
    expect(replayed.status, await replayed.text()).toBe(200)
    const pact = (await c.control.get('/contracts/pact')).body
    const made = pact.interactions.find((i: Interaction) => i.description.startsWith('portalCreateTicket'))
    expect(made.providerStates?.[0]).toEqual({
      name: 'a signed-in portal contact',
      params: { email: 'owner@acme.test' },
    })
    for (const i of pact.interactions as Interaction[])
      expect(await replay(rt, i, { 'x-sandbox-id': freshId('verify') }), i.description).toBe(i.response.status)
  })

  it('an upload of bytes no text holds (a PNG) is carried as base64, and verifies (seed 1612661465)', async () => {
    const c = await rt.isolated()
    const visit = (await c.get('/api/v1/visit_detail/list')).body.data[0]
    const sent = await c.upload(`/api/v1/visit_detail/upload/${visit.id}`, form([bytes.png(), 'image/png', 'foto.png']))
    expect(sent.status).toBe(201)
    // And again once the world is replayed from its bundle, whose journal is the replay's (seed -1693163675).
    for (const replayed of [false, true]) {
      if (replayed) expect((await c.control.post('/repro', (await c.control.get('/repro')).body)).status).toBe(200)
      const pact = (await c.control.get('/contracts/pact')).body
      const upload = pact.interactions.find((i: Interaction) => i.description.startsWith('uploadVisitFile'))
      expect(upload.request.body.encoded, `replayed: ${replayed}`).toBe('base64')
      const carried = Buffer.from(upload.request.body.content, 'base64')
      expect(carried.includes(Buffer.from(bytes.png()))).toBe(true)
      expect(upload.request.body.contentType).toMatch(/^multipart\/form-data; boundary=/)
      for (const i of pact.interactions as Interaction[])
        expect(await replay(rt, i, { 'x-sandbox-id': freshId('verify') }), i.description).toBe(i.response.status)
    }
  })

  it('requests it could not send again make no interaction: restored entries, a body cut at 64 KB (seed -1405078706)', async () => {
    const c = await rt.isolated()
    const signIn = (email: string) => c.as(null).post('/api/session-auth/sign-in/email', { email, password: 'sandbox' })
    const operator = c.as((await signIn('operator@fleet.test')).headers.get('set-auth-token')!)
    expect((await operator.post('/api/v1/billing/invoices/inv_acme_0001/publish', {})).status).toBe(403)
    // A snapshot put back: its journal entries come without their headers and bodies.
    const restored = await c.control.put('/snapshot', (await c.control.get('/snapshot')).body)
    expect(restored.status, await restored.text()).toBe(200)
    expect((await c.control.get('/contracts/pact')).body.message).toMatch(
      /holds no API answer .*; \d+ without the request as sent/,
    )
    expect((await signIn('admin@fleet.test')).status).toBe(200)
    const big = await signIn('x'.repeat(70_000) + '@fleet.test')
    expect(big.status).toBeGreaterThanOrEqual(400)
    const pact = (await c.control.get('/contracts/pact')).body
    expect(pact.interactions.map((i: Interaction) => i.description)).toEqual(['signInEmail, no scenario, status 200'])
    expect(pact.interactions[0].providerStates).toEqual([
      { name: 'a user can sign in', params: { email: 'admin@fleet.test' } },
    ])
    expect(pact.metadata['fleet-sandbox'].requests).toBe(1)
    for (const i of pact.interactions as Interaction[])
      expect(await replay(rt, i, { 'x-sandbox-id': freshId('verify') }), i.description).toBe(i.response.status)
  })

  it('a session a replay opened and signed out still names its caller (seed -1621726725)', async () => {
    const c = await rt.isolated()
    const signed = await c.as(null).post('/api/session-auth/sign-in/email', {
      email: 'viewer@fleet.test',
      password: 'sandbox',
    })
    const viewer = c.as(signed.headers.get('set-auth-token')!)
    // A read a scenario named is a step of the bundle; the replay sends it in a session of its own.
    expect((await viewer.get('/api/auth/users/me', { 'x-sandbox-scenario': 'commit-then-fail' })).status).toBe(200)
    expect((await viewer.post('/api/session-auth/sign-out', {})).status).toBe(200)
    const replayed = await c.control.post('/repro', (await c.control.get('/repro')).body)
    expect(replayed.status, await replayed.text()).toBe(200)
    const pact = (await c.control.get('/contracts/pact')).body
    const me = pact.interactions.find((i: Interaction) => i.description.startsWith('getMe'))
    expect(me.providerStates).toEqual([{ name: 'a signed-in user', params: { email: 'viewer@fleet.test' } }])
    for (const i of pact.interactions as Interaction[])
      expect(await replay(rt, i, { 'x-sandbox-id': freshId('verify') }), i.description).toBe(i.response.status)
  })

  it("an override's answer is left out unless ?overrides=include, then marked", async () => {
    const c = client(rt, { sandbox: freshId('ovr'), token: ADMIN_TOKEN })
    const made = await c.control.post('/overrides', {
      name: 'teapot',
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { status: 418, body: { status: 'error', message: 'teapot' } },
    })
    expect(made.status, await made.text()).toBe(201)
    expect((await c.get('/api/vehicle-types')).status).toBe(418)
    expect((await c.get('/api/layers')).status).toBe(200)
    const plain = (await c.control.get('/contracts/pact')).body
    expect(plain.interactions.map((i: Interaction) => i.description)).toEqual(['listLayers, no scenario, status 200'])
    const all = (await c.control.get('/contracts/pact?overrides=include&consumer=web.app&provider=api_1')).body
    expect(all.consumer.name).toBe('web.app')
    const marked = all.interactions.find((i: Interaction) => i.response.status === 418)
    expect(marked.description).toMatch(/^listVehicleTypes, no scenario, override:\S+, status 418$/)
    expect(marked.comments.text[0]).toMatch(/never gave this answer/)
  })

  it('?scenarios=pending writes what a scenario shaped as V4 pending; ?scenarios=exclude leaves it out', async () => {
    const c = await rt.isolated()
    await traffic(c)
    const descriptions = async (query: string) =>
      ((await c.control.get(`/contracts/pact${query}`)).body.interactions as (Interaction & { pending: boolean })[])
        .filter((i) => i.description.startsWith('listNotifications'))
        .map((i) => [i.description, i.pending])
    const kept = [
      ['listNotifications, no scenario, status 200', false],
      ['listNotifications, scenario rate-limited, status 429', false],
    ]
    expect(await descriptions('')).toEqual(kept)
    expect(await descriptions('?scenarios=include')).toEqual(kept)
    expect(await descriptions('?scenarios=pending')).toEqual([kept[0], [kept[1][0], true]])
    expect(await descriptions('?scenarios=exclude')).toEqual([kept[0]])
  })

  it('bad input: a 4xx naming the field and the rule', async () => {
    const c = client(rt, { sandbox: freshId('bad'), token: ADMIN_TOKEN })
    expect(await (await c.control.get('/contracts/pact')).text()).toMatch(/journal: .*no API answer/)
    expect((await c.control.get('/contracts/pact')).status).toBe(409)
    expect((await c.control.get('/contracts/openapi')).status).toBe(409)
    await c.get('/api/layers')
    const bad = async (path: string, status: number, message: RegExp) => {
      const res = await c.control.get(path)
      expect(res.status, path).toBe(status)
      expect(res.body?.message ?? (await res.text()), path).toMatch(message)
    }
    await bad('/contracts/pact?consumer=a%20b', 400, /consumer: must be 1 to 64 letters/)
    await bad('/contracts/pact?provider=', 400, /provider: must be/)
    await bad('/contracts/pact?overrides=all', 400, /overrides: must be one of "include", "exclude"/)
    await bad('/contracts/pact?extra=1', 400, /unknown field extra/)
    await bad('/contracts/pact?__proto__=1', 400, /unknown field __proto__/)
    await bad('/contracts/pact?constructor=1&__proto__=2', 400, /unknown field constructor, __proto__/)
    await bad('/contracts/pact?scenarios=some', 400, /scenarios: must be one of "include", "pending", "exclude"/)
    const post = async (body: unknown, status: number, message: RegExp) => {
      const res = await c.control.post('/pact/states', body)
      expect(res.status, JSON.stringify(body)).toBe(status)
      expect(res.body?.message ?? (await res.text()), JSON.stringify(body)).toMatch(message)
    }
    await post({ state: 'a unicorn exists', params: {} }, 400, /state: no state "a unicorn exists"/)
    await post(
      { state: 'a signed-in user', params: { email: 'nope' } },
      400,
      /params\.email: must be an e-mail address/,
    )
    await post(
      { state: 'a signed-in user', params: { email: 'nobody@fleet.test' } },
      404,
      /params\.email: no user nobody@fleet\.test/,
    )
    await post(
      { state: 'a signed-in user', params: { email: 'admin@fleet.test', role: 'x' } },
      400,
      /params: unknown field role/,
    )
    await post({ state: 'a notification exists', params: {} }, 400, /params\.id: is required/)
    await post({ state: 'the scenario nope is on' }, 400, /state.*nope/)
    await post({ state: 'a signed-in user', action: 'undo' }, 400, /action: must be one of "setup", "teardown"/)
    await post({ state: 'a signed-in user', extra: 1 }, 400, /body: unknown field extra/)
    await post({ params: {} }, 400, /state: /)
    // A refused state changed nothing: the journal holds the one request, and the state calls, each refused.
    const journal = (await c.control.get('/requests')).body.requests as { path: string; status: number }[]
    expect(journal.filter((r) => r.path !== '/__sandbox/pact/states').map((r) => r.path)).toEqual(['/api/layers'])
    expectEach(
      journal.filter((r) => r.path === '/__sandbox/pact/states'),
      (r) => r.status >= 400 && r.status < 500,
    )
  })

  it('POST /pact/states answers the values the generators need; GET lists every state', async () => {
    const c = client(rt, { sandbox: freshId('states') })
    const res = await c.control.post('/pact/states', {
      state: 'a signed-in user',
      params: { email: 'viewer@fleet.test' },
      action: 'setup',
    })
    expect(res.status, await res.text()).toBe(200)
    expect(Object.keys(res.body)).toEqual(['token'])
    const me = await c.as(res.body.token).get('/api/auth/users/me')
    expect(me.status).toBe(200)
    expect(me.body.data?.email ?? me.body.email ?? JSON.stringify(me.body)).toContain('viewer@fleet.test')
    // What the verifier sends for an interaction without a state.
    expect((await c.control.post('/pact/states', { action: 'setup', params: {}, state: '' })).body).toEqual({})
    expect((await c.control.post('/pact/states', { action: 'teardown', params: {}, state: '' })).status).toBe(200)
    const list = await c.control.get('/pact/states')
    expect(list.status).toBe(200)
    const names = list.body.states.map((s: { name: string }) => s.name)
    expect(names).toEqual(
      expect.arrayContaining([
        'a signed-in user',
        'a user can sign in',
        'a notification exists',
        'a layer does not exist',
        'the scenario rate-limited is on',
      ]),
    )
    expectEach(
      list.body.states,
      (s: any) => typeof s.sets === 'string' && s.sets.length > 0 && Array.isArray(s.returns),
    )
    // The preconditions a state carries (issue 51): a record's plain fields, the tokens single-use routes take.
    const byName = new Map(list.body.states.map((s: { name: string }) => [s.name, s]))
    expect(Object.keys((byName.get('an invoice exists') as any).params)).toEqual(
      expect.arrayContaining(['id', 'status', 'balance', 'dteId', 'number']),
    )
    expect(Object.keys((byName.get('a dte exists') as any).params)).toEqual(
      expect.arrayContaining(['id', 'invoiceId', 'local_status']),
    )
    expect((byName.get('a password reset was requested') as any).returns).toEqual(['token'])
    expect((byName.get('a magic link was sent') as any).returns).toEqual(['token'])
  })
})
