import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { http, HttpResponse } from 'msw'
import { setupSandboxServer } from '../../src/adapters/node/index.js'

// Its own process (vitest forks): no other runtime replaces the global Response here, as in a team's suite.
const ORIGIN = 'http://api.test'
const sandbox = setupSandboxServer({ origins: [ORIGIN], now: '2026-11-22T12:00:00.000Z', onUnhandledRequest: 'bypass' })
beforeAll(sandbox.listen)
afterEach(sandbox.reset)
afterAll(sandbox.close)

const signIn = async (headers: Record<string, string> = {}) =>
  (
    await fetch(`${ORIGIN}/api/session-auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
    })
  ).headers.get('set-auth-token')!

describe('fleet-sandbox/node: override()', () => {
  it('answers in the default world until reset(), journaled with its fault', async () => {
    const token = await signIn()
    const created = await sandbox.override({
      match: { method: 'GET', operation: 'listVehicleTypes' },
      respond: { status: 500, body: { message: 'mine' } },
      name: 'down',
    })
    expect(created).toMatchObject({ operation: 'listVehicleTypes', name: 'down', findings: expect.any(Array) })
    const res = await fetch(`${ORIGIN}/api/vehicle-types`, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).toBe(500)
    expect(res.headers.get('x-sandbox-fault')).toBe('override:down')
    expect(sandbox.sandbox().journal.list().at(-1)).toMatchObject({
      path: '/api/vehicle-types',
      status: 500,
      faults: [`override:${created.id}`],
    })
    await sandbox.reset()
    expect(sandbox.sandbox().overrides.size).toBe(0)
  })

  it('in the world an x-sandbox-id names, and only there', async () => {
    const headers = { 'x-sandbox-id': 'node-entry-a' }
    const token = await signIn(headers)
    await sandbox.override(
      { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 503, body: {} } },
      'node-entry-a',
    )
    expect(
      (await fetch(`${ORIGIN}/api/vehicle-types`, { headers: { ...headers, authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(503)
    expect(
      (await fetch(`${ORIGIN}/api/vehicle-types`, { headers: { authorization: `Bearer ${await signIn()}` } })).status,
    ).toBe(200)
  })

  it('{error: "network"} is a failed fetch, journaled as status 0', async () => {
    const token = await signIn()
    await sandbox.override({
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { error: 'network' },
      times: 1,
    })
    await expect(
      fetch(`${ORIGIN}/api/vehicle-types`, { headers: { authorization: `Bearer ${token}` } }),
    ).rejects.toThrow(/fetch/i)
    expect(sandbox.sandbox().journal.list().at(-1)).toMatchObject({ path: '/api/vehicle-types', status: 0 })
    expect((await fetch(`${ORIGIN}/api/vehicle-types`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    )
  })

  it('a bad override is refused with the field named', async () => {
    await expect(
      sandbox.override({ match: { method: 'GET', path: '/api/nope' }, respond: { status: 200 } }),
    ).rejects.toThrow(/answered 400: .*match\.path: no route answers GET \/api\/nope/)
  })
})

describe('fleet-sandbox/node: answers of your own server.use() handlers', () => {
  it('are journaled like the sandbox\'s, marked "use", in the world the request names; other origins are not', async () => {
    sandbox.server.use(
      http.get(`${ORIGIN}/api/vehicle-types`, () => HttpResponse.json({ mine: true }, { status: 202 })),
      http.get('http://maps.example/tiles', () => HttpResponse.json({ tiles: [] })),
    )
    const res = await fetch(`${ORIGIN}/api/vehicle-types?x=1`, { headers: { 'x-sandbox-id': 'node-entry-use' } })
    expect(res.status).toBe(202)
    await fetch('http://maps.example/tiles')
    const world = await sandbox.isolated('node-entry-use')
    await expect.poll(() => world.journal.list().length).toBe(1)
    expect(world.journal.list()[0]).toMatchObject({
      method: 'GET',
      path: '/api/vehicle-types',
      query: '?x=1',
      status: 202,
      faults: ['use'],
    })
    expect(world.journal.details().at(-1)?.response.body).toBe('{"mine":true}')
    expect(
      sandbox
        .sandbox()
        .journal.list()
        .some((e) => e.path === '/tiles'),
    ).toBe(false)
  })

  it("keep a route's secrets out of the journal, as the sandbox's own answers do", async () => {
    sandbox.server.use(http.post(`${ORIGIN}/api/session-auth/sign-in/email`, () => HttpResponse.json({ mine: true })))
    await fetch(`${ORIGIN}/api/session-auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox-secret-1' }),
    })
    await expect
      .poll(
        () =>
          sandbox
            .sandbox()
            .journal.list()
            .filter((e) => e.faults.includes('use')).length,
      )
      .toBe(1)
    const body = sandbox.sandbox().journal.details().at(-1)!.request.body ?? ''
    expect(body).toContain('admin@fleet.test')
    expect(body).not.toContain('sandbox-secret-1')
  })
})
