import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, client, freshId } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('GET /__sandbox/contracts/openapi through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('the operations and statuses the app used, with the served schemas, valid by the validator that checks the served one', async () => {
    const c = client(rt, { sandbox: freshId('used'), token: ADMIN_TOKEN })
    expect((await c.get('/api/layers')).status).toBe(200)
    expect((await c.get('/api/notifications?limit=1')).status).toBe(200)
    expect((await c.get('/api/notifications', { 'x-sandbox-scenario': 'rate-limited' })).status).toBe(429)
    expect((await c.as(null).get('/api/layers')).status).toBe(401)
    const res = await c.control.get('/contracts/openapi')
    expect(res.status).toBe(200)
    const doc = res.body
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
    const ops = Object.entries(
      doc.paths as Record<string, Record<string, { operationId: string; responses: object }>>,
    ).flatMap(([, item]) => Object.values(item).map((op) => `${op.operationId} ${Object.keys(op.responses).join(',')}`))
    expect(ops.sort()).toEqual(['listLayers 200,401', 'listNotifications 200,429'])
    // The served document's schemas, whole.
    const served = (await c.control.get('/openapi.json')).body
    expect(doc.components).toEqual(served.components)
    expect(doc.paths['/api/layers'].get.responses['200']).toEqual(served.paths['/api/layers'].get.responses['200'])
  })
})
