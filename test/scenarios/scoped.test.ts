import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('scenarios scoped to routes through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('acts on the routes it names only: operation ids and METHOD /path patterns', async () => {
    const c = await rt.isolated()
    const body = await c.scenarios([
      { name: 'rate-limit-exhausted', options: { routes: ['listVehicleTypes'] } },
      { name: 'forbidden', options: { routes: ['PATCH /api/notifications/*'] } },
    ])
    expect(body.scenarios.find((s: { name: string }) => s.name === 'rate-limit-exhausted').options).toEqual({
      retryAfter: 1,
      routes: ['listVehicleTypes'],
    })
    expect((await c.get('/api/vehicle-types')).status).toBe(429)
    const list = await c.get('/api/notifications?limit=1')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-sandbox-fault')).toBe(null)
    const id = list.body.data.notifications[0].id
    expect((await c.send('PATCH', `/api/notifications/${id}`, { status: 'reviewed' })).status).toBe(403)
    const journal = (await c.control.get('/requests')).body.requests
    expect(journal.map((e: { path: string; status: number }) => `${e.status} ${e.path.replace(id, ':id')}`)).toEqual(
      expect.arrayContaining(['429 /api/vehicle-types', '200 /api/notifications', '403 /api/notifications/:id']),
    )
  })

  it('in text form, in the x-sandbox-scenario header: routes=a|b', async () => {
    const c = await rt.isolated()
    const scoped = { 'x-sandbox-scenario': 'rate-limit-exhausted;routes=listVehicleTypes|GET /api/notifications' }
    expect((await c.get('/api/vehicle-types', scoped)).status).toBe(429)
    expect((await c.get('/api/notifications?limit=1', scoped)).status).toBe(429)
    expect((await c.get('/api/layers', scoped)).status).toBe(200)
  })

  it('on a timeline: scoped and windowed at once', async () => {
    const c = await rt.isolated()
    await c.scenarios([{ name: 'rate-limit-exhausted', options: { routes: 'listVehicleTypes' }, from: '+1h' }])
    expect((await c.get('/api/vehicle-types')).status).toBe(200)
    await c.control.post('/clock', { advanceBy: '61m' })
    expect((await c.get('/api/vehicle-types')).status).toBe(429)
    expect((await c.get('/api/layers')).status).toBe(200)
  })

  it("GET /__sandbox/scenarios shows routes in every scenario's options schema", async () => {
    const c = rt.fresh('scoped-list')
    const { scenarios } = (await c.control.get('/scenarios')).body
    expect(scenarios.length).toBeGreaterThan(5)
    for (const s of scenarios) {
      expect(s.schema.properties.routes, s.name).toMatchObject({ anyOf: [{ type: 'array' }, { type: 'string' }] })
      expect(
        s.optionList.map((o: { name: string }) => o.name),
        s.name,
      ).toContain('routes')
    }
  })

  it('refuses a wrong routes entry with a 400 naming the field and the entry, and changes nothing', async () => {
    const c = rt.fresh('scoped-bad')
    const bad: [unknown, RegExp][] = [
      [
        { name: 'slow', options: { routes: ['nopeOperation'] } },
        /^active\.0: slow\.options\.routes\.0: no operation "nopeOperation"/,
      ],
      [
        { name: 'slow', options: { routes: ['GET /api/nowhere'] } },
        /^active\.0: slow\.options\.routes\.0: "GET \/api\/nowhere" matches no route/,
      ],
      [
        { name: 'slow', options: { routes: ['FETCH /api/layers'] } },
        /^active\.0: slow\.options\.routes\.0: "FETCH \/api\/layers" must be an operation id or "METHOD \/path"/,
      ],
      [{ name: 'slow', options: { routes: [] } }, /^active\.0: slow\.options\.routes: must be a list of 1 to 100/],
      [{ name: 'slow', options: { routes: 7 } }, /^active\.0: slow\.options\.routes: must be a list/],
      ['slow;routes=bad name!', /slow\.options\.routes\.0: "bad name!" must be an operation id/],
    ]
    for (const [entry, message] of bad) {
      const res = await c.control.put('/scenarios', { active: [entry] })
      expect(res.status, JSON.stringify(entry)).toBe(400)
      expect(res.body.message, JSON.stringify(entry)).toMatch(message)
    }
    expect((await c.control.get('/health')).body.scenarios).toEqual([])
    const header = await rt.client(null, c.id).get('/api/layers', { 'x-sandbox-scenario': 'slow;routes=nopeOperation' })
    expect(header.status).toBe(400)
    expect(header.body.message).toMatch(/x-sandbox-scenario: slow\.options\.routes\.0: no operation "nopeOperation"/)
  })
})
