import { Validator } from '@seriousme/openapi-schema-validator'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RouteDef } from '../../src/core/route/route.js'
// What the runtimes under test serve: the route table and agent access (src/apps/server-app.ts).
import { serverRoutes as routes } from '../../src/apps/server-app.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

type Doc = {
  openapi: string
  servers: { url: string }[]
  paths: Record<string, Record<string, Record<string, any>>>
  components: Record<string, any>
  'x-sandbox-strict': boolean
}

const openapiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')
const operationOf = (doc: Doc, route: RouteDef) => doc.paths[openapiPath(route.path)]?.[route.method.toLowerCase()]

describe.each(runtimes)('OpenAPI document through $name', (runtime) => {
  const rt = useSandbox(runtime)
  let doc: Doc
  beforeAll(async () => {
    const res = await rt.fetch('/__sandbox/openapi.json')
    expect(res.status).toBe(200)
    doc = await res.json()
  })

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc))
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
    expect(doc.servers[0].url).toMatch(/^http:\/\//)
    expect(doc['x-sandbox-strict']).toBe(false)
  })

  it('has every route of the table with its method, operationId, tag and security', () => {
    expect(routes.length).toBeGreaterThan(30)
    const ids = new Set<string>()
    for (const route of routes) {
      const op = operationOf(doc, route)
      expect(op, `${route.method} ${route.path}`).toBeDefined()
      expect(op.operationId).toBe(route.id)
      expect(op.tags).toEqual([route.tag])
      ids.add(op.operationId)
      const expected = {
        public: [],
        user: [{ session: [] }, { apiToken: [] }, { agentToken: [] }, { agentOAuth: ['service:api'] }],
        portal: [{ portalBearer: [] }],
        control: [{ controlToken: [] }, {}],
      }[route.auth.kind]
      expect(op.security, route.id).toEqual(expected)
      expect(op['x-sandbox-assumed'], route.id).toBe(route.assumed ? true : undefined)
    }
    expect(ids.size).toBe(routes.length)
    const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0)
    expect(count).toBe(routes.length)
    expect(doc.components.securitySchemes).toMatchObject({
      session: { type: 'http', scheme: 'bearer' },
      apiToken: { type: 'http', scheme: 'bearer' },
      agentToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      agentOAuth: { type: 'oauth2' },
      portalBearer: { type: 'http', scheme: 'bearer' },
      controlToken: { type: 'apiKey', in: 'header', name: 'x-sandbox-control-token' },
    })
  })

  it('documents path parameters, query parameters and bodies from the schemas', () => {
    const gps = doc.paths['/api/v1/gps/{gps_details_id}'].get
    expect(gps.parameters).toEqual([
      {
        name: 'gps_details_id',
        in: 'path',
        required: true,
        schema: expect.objectContaining({ type: 'string', format: 'uuid' }),
      },
      { $ref: '#/components/parameters/SandboxId' },
      { $ref: '#/components/parameters/SandboxScenario' },
    ])
    const notifications = doc.paths['/api/notifications'].get
    const types = notifications.parameters.find((p: { name: string }) => p.name === 'types')
    expect(types).toMatchObject({
      in: 'query',
      required: false,
      style: 'form',
      explode: true,
      schema: { type: 'array' },
    })
    expect(notifications.parameters.find((p: { name: string }) => p.name === 'limit').schema).toMatchObject({
      minimum: 1,
      maximum: 50,
    })
    const update = doc.paths['/api/maintenance/service-providers/{id}'].put
    expect(update.requestBody.required).toBe(true)
    expect(update.requestBody.content['application/json'].schema).toMatchObject({ type: 'object', required: ['email'] })
    expect(update.requestBody.content['application/json'].schema.properties.name['x-sandbox-assumed']).toBe(true)
    // What the route does to an address is said: it is trimmed and lower-cased before the check.
    expect(update.requestBody.content['application/json'].schema.properties.email).toMatchObject({
      type: 'string',
      format: 'email',
      description: expect.stringMatching(/trimmed and it is lower-cased/),
    })
    const send = doc.paths['/api/v1/billing/invoices/{id}/send-email'].post
    expect(send.requestBody.content['application/json'].schema.properties.to.items).toMatchObject({
      type: 'string',
      format: 'email',
    })
    // Any request can meet the server's header limit (Node: 16 KB), and any control request a foreign page's refusal.
    expect(Object.keys(send.responses)).toContain('431')
    expect(Object.keys(doc.paths['/__sandbox/reset'].post.responses)).toEqual(
      expect.arrayContaining(['403', '415', '431']),
    )
    const upload = doc.paths['/api/v1/visit_detail/upload/{visitDetailId}'].post
    expect(upload.requestBody.content['multipart/form-data'].schema.required).toEqual(['file'])
    expect(upload['x-sandbox-effect']).toBe(true)
    expect(Object.keys(upload.responses)).toContain('201')
  })

  it('documents success bodies, and error statuses in the shape each route answers', () => {
    // The route's own shape first; the error-shapes scenario may answer any of the three.
    const ref = (op: Record<string, any>, status: number) =>
      op.responses[String(status)].content['application/json'].schema.anyOf[0].$ref
    const vehicleTypes = doc.paths['/api/vehicle-types'].get
    expect(vehicleTypes.responses['200'].content['application/json'].schema.properties.data.items).toMatchObject({
      required: ['name', 'group'],
    })
    expect(ref(vehicleTypes, 401)).toBe('#/components/schemas/ErrorText')
    expect(ref(vehicleTypes, 500)).toBe('#/components/schemas/MessageText')
    const layerDelete = doc.paths['/api/layers/{id}'].delete
    expect(ref(layerDelete, 404)).toBe('#/components/schemas/ErrorText')
    expect(ref(layerDelete, 403)).toBe('#/components/schemas/ErrorText')
    const update = doc.paths['/api/maintenance/service-providers/{id}'].put
    for (const status of [400, 401, 403, 404]) expect(ref(update, status)).toBe('#/components/schemas/ErrorText')
    expect(ref(update, 500)).toBe('#/components/schemas/MessageText')
    const send = doc.paths['/api/omnichannel/send'].post
    expect(ref(send, 409)).toBe('#/components/schemas/StandardError')
    expect(doc.components.schemas.StandardError.required).toEqual(['statusCode', 'message', 'error'])
    const history =
      doc.paths['/api/v1/visit_history/get/{visitDetailId}'].get.responses['200'].content['application/json'].schema
    expect(history.type).toBe('array')
    expect(history.items.required.sort()).toEqual([
      'action',
      'change',
      'datetime',
      'entity_names_new',
      'entity_names_old',
      'id',
      'user_email',
      'user_id',
      'user_name',
      'visit_detail_id',
    ])
    const plan =
      doc.paths['/api/v1/subscription_plan/get/{plan_id}'].get.responses['200'].content['application/json'].schema
    expect(plan.properties.id.type).toBe('integer')
    const quote = doc.paths['/api/v1/shipments/quote'].post
    expect(quote.responses['200'].content['application/json'].schema.properties.data['x-sandbox-assumed']).toBe(true)
  })
})
