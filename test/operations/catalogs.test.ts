import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe.each(runtimes)('catalogs through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('lists vehicle types exactly as the spec: {status, data: [{name, group}]}', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/vehicle-types')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-assumed')).toBeNull()
    expect(Object.keys(res.body)).toEqual(['status', 'data'])
    expect(res.body.data.length).toBeGreaterThan(5)
    for (const t of res.body.data) {
      expect(Object.keys(t)).toEqual(['name', 'group'])
      expect(typeof t.name).toBe('string')
      expect(typeof t.group).toBe('string')
    }
    const anonymous = await rt.fetch('/api/vehicle-types')
    expect(anonymous.status).toBe(401)
    expect(Object.keys(await anonymous.json())).toEqual(['error'])
  })

  it('deletes a layer: gone from the list, a second delete is 404 {error}', async () => {
    const admin = await rt.isolated()
    const list = await admin.get('/api/layers')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-sandbox-assumed')).toBe('true')
    const layer = list.body.data[0]
    expect(layer).toMatchObject({ id: expect.any(String), name: expect.any(String), kind: expect.any(String) })
    expect(layer.clientId).toBeUndefined()
    const first = await admin.send('DELETE', `/api/layers/${layer.id}`)
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ status: 'success' })
    const after = await admin.get('/api/layers')
    expect(after.body.data.map((l: { id: string }) => l.id)).not.toContain(layer.id)
    expect(after.body.data).toHaveLength(list.body.data.length - 1)
    const second = await admin.send('DELETE', `/api/layers/${layer.id}`)
    expect(second.status).toBe(404)
    expect(second.body).toEqual({ error: `id: no layer with id ${layer.id}` })
  })

  it('refuses a viewer (403 {error}) and another client (404 {error}) without deleting', async () => {
    const sbx = await rt.isolated()
    const layer = (await sbx.get('/api/layers')).body.data[0]
    const viewer = await sbx.user('viewer@fleet.test')
    const refused = await viewer.send('DELETE', `/api/layers/${layer.id}`)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toContain('catalogs:write')
    expect((await viewer.get('/api/layers')).status).toBe(200)
    const other = await sbx.user('admin@other.test')
    const foreign = await other.send('DELETE', `/api/layers/${layer.id}`)
    expect(foreign.status).toBe(404)
    expect(Object.keys(foreign.body)).toEqual(['error'])
    expect((await other.get('/api/layers')).body.data.map((l: { id: string }) => l.id)).not.toContain(layer.id)
    expect((await sbx.get('/api/layers')).body.data.map((l: { id: string }) => l.id)).toContain(layer.id)
  })

  it('answers a GPS detail identically on the legacy and the RESTful route', async () => {
    const admin = await rt.isolated()
    const list = await admin.get('/api/v1/gps/list')
    expect(list.status).toBe(200)
    expect(list.headers.get('x-sandbox-assumed')).toBe('true')
    const gps = list.body.data[0]
    expect(gps.id).toMatch(UUID)
    const legacy = await admin.get(`/api/v1/gps/get/${gps.id}`)
    const restful = await admin.get(`/api/v1/gps/${gps.id}`)
    expect(legacy.status).toBe(200)
    expect(restful.status).toBe(200)
    expect(legacy.body).toEqual(restful.body)
    expect(legacy.body).toEqual({ status: 'success', data: gps })
    expect(gps).toMatchObject({
      imei: expect.stringMatching(/^\d{15}$/),
      plate: expect.stringMatching(/^[A-Z]{4}\d{2}$/),
    })
  })

  it.each(['/api/v1/gps/get/123', '/api/v1/gps/not-a-uuid', '/api/v1/gps/get/6f1c2b3a-0000-0000-0000'])(
    'refuses %s with 400 naming gps_details_id',
    async (path) => {
      const admin = await rt.isolated()
      const res = await admin.get(path)
      expect(res.status).toBe(400)
      expect(res.body.message).toBe('gps_details_id: must be a UUID')
    },
  )

  it("answers 404 for an unknown GPS id and for another client's", async () => {
    const sbx = await rt.isolated()
    const unknown = await sbx.get('/api/v1/gps/5b0e7a52-3f1d-4c59-9a55-0d6f3f4b2c11')
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toContain('gps_details_id')
    const mine = (await sbx.get('/api/v1/gps/list')).body.data[0]
    const other = await sbx.user('admin@other.test')
    expect((await other.get(`/api/v1/gps/${mine.id}`)).status).toBe(404)
    expect((await other.get(`/api/v1/gps/get/${mine.id}`)).status).toBe(404)
  })

  it('answers a subscription plan as a bare object with an integer id', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/v1/subscription_plan/get/2')
    expect(res.status).toBe(200)
    expect(Object.keys(res.body).sort()).toEqual([
      'currency_name',
      'currency_value',
      'description',
      'id',
      'name',
      'subscription_currency_id',
    ])
    expect(res.body.id).toBe(2)
    expect(Number.isInteger(res.body.subscription_currency_id)).toBe(true)
    const list = await admin.get('/api/v1/subscription_plan/list')
    expect(list.headers.get('x-sandbox-assumed')).toBe('true')
    expect(list.body.data.map((p: { id: number }) => p.id)).toEqual(
      [...list.body.data.map((p: { id: number }) => p.id)].sort((a, b) => a - b),
    )
    expect(list.body.data).toContainEqual(res.body)
  })

  it.each(['1.5', 'abc', '-1', '1e2'])('refuses plan_id %s with 400', async (id) => {
    const admin = await rt.isolated()
    const res = await admin.get(`/api/v1/subscription_plan/get/${id}`)
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('plan_id: must be an integer')
  })

  it('answers 404 for an unknown plan', async () => {
    const admin = await rt.isolated()
    const res = await admin.get('/api/v1/subscription_plan/get/999')
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found' })
  })

  it.each(['/api/vehicle-types', '/api/layers', '/api/v1/gps/list', '/api/v1/subscription_plan/list'])(
    'empties %s under the empty scenario',
    async (path) => {
      const admin = await rt.isolated()
      const res = await admin.get(path, { 'x-sandbox-scenario': 'empty' })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ status: 'success', data: [] })
      expect(res.headers.get('x-sandbox-fault')).toBe('empty')
    },
  )
})
