import { describe, expect, it } from 'vitest'
import { type Client, freshId } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/** POST /__sandbox/overrides in `c`'s world, asserting the 201. */
async function add(c: Client, override: unknown) {
  const res = await c.control.post('/overrides', override)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body
}

const ONE_500 = {
  match: { method: 'GET', path: '/api/vehicle-types' },
  respond: { status: 500, body: { error: 'boom', message: 'mine' } },
  times: 1,
}

describe.each(runtimes)('overrides through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('answers one route with my status and body, once, then steps aside; marked in the header and the journal', async () => {
    const c = await rt.isolated()
    const created = await add(c, { ...ONE_500, name: 'types-down' })
    expect(created).toMatchObject({
      id: expect.stringMatching(/^ovr_/),
      name: 'types-down',
      operation: 'listVehicleTypes',
      times: 1,
      used: 0,
      remaining: 1,
    })
    expect(Array.isArray(created.findings)).toBe(true)
    const first = await c.get('/api/vehicle-types')
    expect(first.status).toBe(500)
    expect(first.body).toEqual({ error: 'boom', message: 'mine' })
    expect(first.headers.get('x-sandbox-fault')).toBe('override:types-down')
    const second = await c.get('/api/vehicle-types')
    expect(second.status).toBe(200)
    expect(second.headers.get('x-sandbox-fault')).toBe(null)
    const listed = (await c.control.get('/overrides')).body.overrides
    expect(listed).toEqual([expect.objectContaining({ id: created.id, used: 1, remaining: 0 })])
    const journal = (await c.control.get('/requests')).body.requests.filter(
      (e: { path: string }) => e.path === '/api/vehicle-types',
    )
    expect(journal.map((e: { status: number; faults: string[] }) => [e.status, e.faults])).toEqual([
      [500, [`override:${created.id}`]],
      [200, []],
    ])
  })

  it('a concrete path answers for that record only; an operation id and a {param} template for every record', async () => {
    const c = await rt.isolated()
    const list = (await c.get('/api/notifications?limit=2')).body.data.notifications
    const [a, b] = list.map((n: { id: string }) => n.id)
    await add(c, {
      match: { method: 'PATCH', path: `/api/notifications/${a}` },
      respond: { status: 200, body: { id: a, mine: true } },
    })
    expect((await c.send('PATCH', `/api/notifications/${a}`, { status: 'reviewed' })).body).toEqual({
      id: a,
      mine: true,
    })
    const real = await c.send('PATCH', `/api/notifications/${b}`, { status: 'reviewed' })
    expect(real.status).toBe(200)
    expect(real.body.mine).toBe(undefined)
    await add(c, {
      match: { method: 'PATCH', path: '/api/notifications/{id}' },
      respond: { status: 409, body: { message: 'locked' } },
    })
    expect((await c.send('PATCH', `/api/notifications/${b}`, { status: 'reviewed' })).status).toBe(409)
    await add(c, {
      match: { method: 'GET', operation: 'listVehicleTypes' },
      respond: { status: 503, body: { message: 'later' } },
    })
    expect((await c.get('/api/vehicle-types')).status).toBe(503)
  })

  it('auth runs first unless match.anonymous; then the override answers anyone', async () => {
    const c = await rt.isolated()
    await add(c, ONE_500)
    const anonymous = c.as(null)
    expect((await anonymous.get('/api/vehicle-types')).status).toBe(401)
    await add(c, {
      match: { method: 'GET', path: '/api/vehicle-types', anonymous: true },
      respond: { status: 418, body: { message: 'teapot' } },
    })
    expect((await anonymous.get('/api/vehicle-types')).status).toBe(418)
    // The signed-in caller meets the anonymous one first: it answers before auth.
    expect((await c.get('/api/vehicle-types')).status).toBe(418)
  })

  it('a higher priority wins first, the newest among equals; query, headers and body subsets must hold', async () => {
    const c = await rt.isolated()
    await add(c, {
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { status: 501, body: {} },
      priority: 5,
    })
    await add(c, { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 502, body: {} } })
    expect((await c.get('/api/vehicle-types')).status).toBe(501)
    await add(c, {
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { status: 503, body: {} },
      priority: 5,
    })
    expect((await c.get('/api/vehicle-types')).status).toBe(503)

    const d = await rt.isolated()
    await add(d, {
      match: {
        method: 'GET',
        path: '/api/notifications',
        query: { status: 'unreviewed' },
        headers: { 'x-team': 'qa' },
      },
      respond: { status: 299, body: { only: 'qa' } },
    })
    expect((await d.get('/api/notifications?status=unreviewed')).status).toBe(200)
    expect((await d.get('/api/notifications?status=reviewed', { 'x-team': 'qa' })).status).toBe(200)
    expect((await d.get('/api/notifications?status=unreviewed&limit=3', { 'x-team': 'qa' })).status).toBe(299)
    await add(d, {
      match: {
        method: 'POST',
        path: '/api/session-auth/sign-in/email',
        body: { email: 'viewer@fleet.test' },
        anonymous: true,
      },
      respond: { status: 423, body: { message: 'locked for the demo' } },
    })
    expect(
      (await d.as(null).post('/api/session-auth/sign-in/email', { email: 'viewer@fleet.test', password: 'sandbox' }))
        .status,
    ).toBe(423)
    // The route still reads the body the override looked at.
    expect(
      (await d.as(null).post('/api/session-auth/sign-in/email', { email: 'admin@fleet.test', password: 'sandbox' }))
        .status,
    ).toBe(200)
  })

  it('a clock window: from +1h answers only once the sandbox clock is there', async () => {
    const c = await rt.isolated()
    await add(c, { ...ONE_500, times: undefined, from: '+1h', until: '+2h' })
    expect((await c.get('/api/vehicle-types')).status).toBe(200)
    await c.control.post('/clock', { advanceBy: '61m' })
    expect((await c.get('/api/vehicle-types')).status).toBe(500)
    await c.control.post('/clock', { advanceBy: '1h' })
    expect((await c.get('/api/vehicle-types')).status).toBe(200)
  })

  it('a delay, then the answer', async () => {
    const c = await rt.isolated()
    await add(c, {
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { status: 200, body: { slow: true }, delayMs: 300 },
    })
    const started = Date.now()
    expect((await c.get('/api/vehicle-types')).body).toEqual({ slow: true })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('lives in its own world: other sandboxes never see it; reset clears it; a snapshot carries it', async () => {
    const c = await rt.isolated()
    const other = await rt.isolated()
    const { id } = await add(c, { ...ONE_500, times: undefined })
    expect((await other.get('/api/vehicle-types')).status).toBe(200)
    expect((await other.control.get('/overrides')).body.overrides).toEqual([])
    expect((await rt.client(null).control.get('/overrides')).body.overrides).toEqual([])
    const snapshot = (await c.control.get('/snapshot')).body
    expect(snapshot.overrides).toEqual([expect.objectContaining({ id })])
    const copy = rt.client(null, freshId('copy'))
    expect((await copy.control.put('/snapshot', snapshot)).status).toBe(200)
    expect((await copy.control.get('/overrides')).body.overrides).toEqual([expect.objectContaining({ id })])
    expect((await c.control.post('/reset', {})).status).toBe(200)
    expect((await c.control.get('/overrides')).body.overrides).toEqual([])
    expect((await c.as(await c.signIn()).get('/api/vehicle-types')).status).toBe(200)
  })

  it('GET, PUT and DELETE one by id or name; DELETE them all', async () => {
    const c = await rt.isolated()
    const a = await add(c, { ...ONE_500, name: 'a' })
    await add(c, { ...ONE_500, name: 'b' })
    expect((await c.control.get('/overrides/a')).body.id).toBe(a.id)
    const edited = await c.control.put(`/overrides/${a.id}`, {
      ...ONE_500,
      name: 'a',
      respond: { status: 504, body: {} },
    })
    expect(edited.status).toBe(200)
    expect(edited.body).toMatchObject({ id: a.id, respond: { status: 504 } })
    expect((await c.control.send('DELETE', '/overrides/b')).status).toBe(200)
    expect((await c.control.get('/overrides')).body.overrides.map((o: { name: string }) => o.name)).toEqual(['a'])
    expect((await c.control.send('DELETE', '/overrides/nope')).status).toBe(404)
    expect((await c.control.send('DELETE', '/overrides')).body).toEqual({ removed: 1, overrides: [] })
  })

  it('refuses every wrong field with a 400 naming it, and changes nothing', async () => {
    const c = await rt.isolated()
    const bad: [unknown, RegExp][] = [
      [{}, /^match: /],
      [{ match: { method: 'GET', path: '/api/vehicle-types' } }, /^respond: /],
      [{ match: { method: 'FETCH', path: '/api/x' }, respond: { status: 200 } }, /^match\.method: must be one of/],
      [{ match: { method: 'GET' }, respond: { status: 200 } }, /^match\.path: give either path or operation/],
      [
        { match: { method: 'GET', path: '/api/nope' }, respond: { status: 200 } },
        /^match\.path: no route answers GET \/api\/nope/,
      ],
      [{ match: { method: 'GET', path: '/api/things/{id}' }, respond: { status: 200 } }, /^match\.path: no route GET/],
      [
        { match: { method: 'GET', operation: 'nope' }, respond: { status: 200 } },
        /^match\.operation: no operation "nope"/,
      ],
      [
        { match: { method: 'POST', operation: 'listVehicleTypes' }, respond: { status: 200 } },
        /^match\.method: listVehicleTypes is GET/,
      ],
      [
        { match: { method: 'GET', path: '/__sandbox/health' }, respond: { status: 200 } },
        /^match\.path: .*control API/,
      ],
      [
        { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 99 } },
        /^respond\.status: must be an integer from 200 to 599/,
      ],
      [
        { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 200, delayMs: 600_000 } },
        /^respond\.delayMs: must be at most 60000/,
      ],
      [
        { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { error: 'timeout' } },
        /^respond\.error: must be "network"/,
      ],
      [
        {
          match: { method: 'GET', path: '/api/vehicle-types' },
          respond: { status: 200, headers: { 'bad header': 'x' } },
        },
        /^respond\.headers\.bad header: must be a header name/,
      ],
      [
        { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 200 }, times: 0 },
        /^times: must be a whole number from 1/,
      ],
      [
        { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 200 }, from: 'tomorrow' },
        /^from: must be an ISO 8601 date-time or \+N/,
      ],
      [
        { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 200 }, from: '+2h', until: '+1h' },
        /^until: must be later than from/,
      ],
      [
        { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 200 }, name: 'no spaces' },
        /^name: must be 1 to 100 letters/,
      ],
      [
        { match: { method: 'GET', path: '/api/vehicle-types' }, respond: { status: 200 }, extra: 1 },
        /^body: unknown field extra/,
      ],
    ]
    for (const [body, message] of bad) {
      const res = await c.control.post('/overrides', body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.message, JSON.stringify(body)).toMatch(message)
    }
    expect((await c.control.get('/overrides')).body.overrides).toEqual([])
  })

  it('checks the body against the served document: findings in the 201', async () => {
    const c = await rt.isolated()
    const fine = await add(c, {
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { status: 200, body: { status: 'success', data: [] } },
    })
    expect(fine.findings).toEqual([])
    const off = await add(c, {
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { status: 200, body: { status: 'success', data: 'none' } },
    })
    expect(off.findings).toEqual([expect.objectContaining({ kind: 'type', pointer: '/data' })])
    const undocumented = await add(c, {
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { status: 418, body: {} },
    })
    expect(undocumented.findings).toEqual([expect.objectContaining({ kind: 'status', actual: 418 })])
  })
})

describe.each(runtimes)('overrides under --strict through $name', (runtime) => {
  const rt = useSandbox(runtime, { strict: true })

  it('refuses an override whose body the document refuses, naming the operation', async () => {
    const c = rt.fresh('strict')
    const res = await c.control.post('/overrides', {
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { status: 200, body: { status: 'success', data: 'none' } },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(
      /^respond: the served document refuses this answer for listVehicleTypes \(--strict\)/,
    )
    expect(
      (
        await c.control.post('/overrides', {
          match: { method: 'GET', path: '/api/vehicle-types' },
          respond: { status: 200, body: { status: 'success', data: [] } },
        })
      ).status,
    ).toBe(201)
  })
})

// Over HTTP only: msw/node's own case is test/overrides/node-entry.test.ts, where no other
// runtime in the process replaces the global Response that msw checks.
describe.each(runtimes.filter((r) => r.http))('a cut connection through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('{error: "network"} cuts the connection: the fetch fails; the journal keeps status 0', async () => {
    const c = await rt.isolated()
    const { id } = await add(c, {
      match: { method: 'GET', path: '/api/vehicle-types' },
      respond: { error: 'network' },
      times: 1,
    })
    // Its own client (not the suite's kept-alive one, which counts every failed connection).
    const send = () =>
      fetch(`${rt.url}/api/vehicle-types`, { headers: { ...c.headers, authorization: `Bearer ${c.token}` } })
    await expect(send()).rejects.toThrow()
    expect((await send()).status).toBe(200)
    const entry = (await c.control.get('/requests')).body.requests.find((e: { faults: string[] }) =>
      e.faults.includes(`override:${id}`),
    )
    expect(entry).toMatchObject({ status: 0, path: '/api/vehicle-types' })
  })
})
