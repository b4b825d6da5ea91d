import { describe, expect, it } from 'vitest'
import { routes } from '../../src/apps/route-table.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/** Assumed routes whose path no documented route shares: with --strict nothing answers them. */
const assumedReads = [
  '/api/layers',
  '/api/v1/technician/list',
  '/api/v1/visit_detail/list',
  '/api/omnichannel/threads',
  '/api/quotes',
  '/api/v1/subscription_plan/list',
  '/api/maintenance/service-providers',
]

describe.each(runtimes)('--strict through $name', (runtime) => {
  const rt = useSandbox(runtime, { strict: true })

  it.each(assumedReads)('answers 404 for the assumed %s', async (path) => {
    const admin = await rt.isolated()
    const res = await admin.get(path)
    expect(res.status).toBe(404)
    expect(res.body.message).toBe(`path: no route GET ${path}`)
  })

  it('answers 404 for assumed reads by id, and still serves the documented routes', async () => {
    const admin = await rt.isolated()
    expect((await admin.get('/api/v1/technician/get/x')).status).toBe(404)
    expect((await admin.get('/api/v1/visit_detail/get/x')).status).toBe(404)
    expect((await admin.get('/api/omnichannel/threads/x/messages')).status).toBe(404)
    // Where a documented route shares the path, it answers instead: 405 (only PUT is served)
    // for a provider read, and the RESTful GPS route reads "list" as an id that is not a UUID.
    expect((await admin.get('/api/maintenance/service-providers/x')).status).toBe(405)
    expect((await admin.get('/api/v1/gps/list')).body.message).toBe('gps_details_id: must be a UUID')
    const types = await admin.get('/api/vehicle-types')
    expect(types.status).toBe(200)
    expect(types.headers.get('x-sandbox-assumed')).toBeNull()
    expect((await admin.get('/api/v1/subscription_plan/get/1')).status).toBe(200)
    expect((await admin.get('/api/omnichannel/auth/whatsapp/status')).status).toBe(200)
    const deleted = await admin.send('DELETE', '/api/layers/000000000000000000000000')
    expect(deleted.status).toBe(404)
    expect(deleted.body).toEqual({ error: 'id: no layer with id 000000000000000000000000' })
    expect(
      (
        await admin.send('POST', '/api/v1/shipments/quote', {
          origin: 'Santiago',
          destination: 'Talca',
          packages: [{ weightKg: 1, lengthCm: 10, widthCm: 10, heightCm: 10 }],
        })
      ).status,
    ).toBe(200)
  })

  it('still deletes a layer, and the OpenAPI document omits every assumed route', async () => {
    const admin = await rt.isolated()
    // Without the assumed list, take an id from the seed: isolated sandboxes share it.
    const layer = (await admin.control.get('/snapshot')).body.layers.find(
      (l: { clientId: string }) => l.clientId === 'cli_acme',
    )
    expect((await admin.send('DELETE', `/api/layers/${layer.id}`)).status).toBe(200)
    const doc = await (await rt.fetch('/__sandbox/openapi.json')).json()
    expect(doc['x-sandbox-strict']).toBe(true)
    const operations = Object.values(
      doc.paths as Record<string, Record<string, { operationId: string; 'x-sandbox-assumed'?: boolean }>>,
    ).flatMap((item) => Object.values(item))
    expect(operations.some((op) => op['x-sandbox-assumed'])).toBe(false)
    const ids = new Set(operations.map((op) => op.operationId))
    for (const route of routes) expect(ids.has(route.id), route.id).toBe(!route.assumed)
    expect(doc.paths['/api/layers']).toBeUndefined()
    expect(doc.paths['/api/layers/{id}'].delete).toBeDefined()
  })
})
