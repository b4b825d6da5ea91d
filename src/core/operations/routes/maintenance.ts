import * as z from 'zod'
import { notFound, success } from '../../http/reply.js'
import { serviceProviderSchema } from '../model.js'
import { assumed } from '../../http/assumed.js'
import { defineRoute, type RouteContext } from '../../route/route.js'
import { clientOf, clientRows, publicRow } from '../../http/tenant.js'
import { emailAddress, idParam, successEnvelope } from '../../http/schemas.js'

const tag = 'maintenance'
const providerOut = assumed(
  serviceProviderSchema.omit({ clientId: true }),
  'Service provider fields are not shown by the spec',
)

function providerOf(ctx: RouteContext<Record<string, string>>) {
  const row = ctx.sandbox.world.tables.serviceProviders.get(ctx.params.id)
  if (!row || row.clientId !== clientOf(ctx)) throw notFound(`id: no service provider with id ${ctx.params.id}`)
  return row
}

const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`)

/** The spec's 400 example says an e-mail is required; the other fields are assumed. */
const updateBody = z.object({
  email: emailAddress('E-mail address (required)'),
  name: assumed(text(200).optional()),
  phone: assumed(text(40).optional()),
  address: assumed(text(300).optional()),
})

export const updateServiceProvider = defineRoute({
  id: 'updateServiceProvider',
  method: 'PUT',
  path: '/api/maintenance/service-providers/:id',
  tag,
  auth: { kind: 'user', permission: 'maintenance:write' },
  errorShape: 'error',
  summary: 'Update a maintenance service provider',
  params: idParam(),
  body: updateBody,
  response: { schema: successEnvelope(z.object({})) },
  errors: {
    400: 'Invalid payload (e-mail missing or invalid)',
    401: 'Not authenticated',
    403: 'No permission',
    404: 'Unknown service provider',
    500: 'Internal error',
  },
  async handler(ctx) {
    const provider = providerOf(ctx)
    const { email, name, phone, address } = ctx.body
    await ctx.sandbox.world.tables.serviceProviders.update(provider.id, (p) => {
      p.email = email
      if (name !== undefined) p.name = name
      if (phone !== undefined) p.phone = phone
      if (address !== undefined) p.address = address
      p.updatedAt = ctx.sandbox.iso()
    })
    return success({})
  },
})

export const listServiceProviders = defineRoute({
  id: 'listServiceProviders',
  method: 'GET',
  path: '/api/maintenance/service-providers',
  lists: 'serviceProviders',
  tag,
  assumed: true,
  auth: { kind: 'user', permission: 'maintenance:read' },
  summary: "The client's maintenance service providers, by name",
  response: { schema: successEnvelope(z.array(providerOut)) },
  handler(ctx) {
    const rows = clientRows(ctx, ctx.sandbox.world.tables.serviceProviders)
    return success(rows.sort((a, b) => a.name.localeCompare(b.name, 'es')).map(publicRow))
  },
})

export const getServiceProvider = defineRoute({
  id: 'getServiceProvider',
  method: 'GET',
  path: '/api/maintenance/service-providers/:id',
  idOf: 'serviceProviders',
  tag,
  assumed: true,
  auth: { kind: 'user', permission: 'maintenance:read' },
  summary: 'One maintenance service provider',
  params: idParam(),
  response: { schema: successEnvelope(providerOut) },
  errors: { 404: 'Unknown service provider' },
  handler: (ctx) => success(publicRow(providerOf(ctx))),
})

export const maintenanceRoutes = [listServiceProviders, getServiceProvider, updateServiceProvider]
