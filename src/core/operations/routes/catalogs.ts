import * as z from 'zod'
import { notFound, ok, success } from '../../http/reply.js'
import { gpsDetailSchema, layerSchema, subscriptionPlanSchema } from '../model.js'
import { assumed } from '../../http/assumed.js'
import { defineRoute, type RouteContext } from '../../route/route.js'
import { clientOf, clientRows, publicRow } from '../../http/tenant.js'
import { idParam, successEnvelope } from '../../http/schemas.js'

const tag = 'catalogs'
const read = { kind: 'user', permission: 'catalogs:read' } as const

export const listVehicleTypes = defineRoute({
  id: 'listVehicleTypes',
  method: 'GET',
  path: '/api/vehicle-types',
  lists: 'vehicleTypes',
  tag,
  auth: read,
  errorShape: 'error',
  summary: 'Vehicle types of the catalog',
  response: { schema: successEnvelope(z.array(z.object({ name: z.string(), group: z.string() }))) },
  errors: { 401: 'Not authenticated', 500: 'Internal error' },
  handler(ctx) {
    if (!ctx.visible('vehicleTypes')) return success([])
    // Exactly `{name, group}`: the spec's VehicleType has no id.
    return success(ctx.sandbox.world.tables.vehicleTypes.all().map(({ name, group }) => ({ name, group })))
  },
})

const layerOut = assumed(layerSchema.omit({ clientId: true }), 'Layer fields are not shown by the spec')

export const listLayers = defineRoute({
  id: 'listLayers',
  method: 'GET',
  path: '/api/layers',
  lists: 'layers',
  tag,
  auth: read,
  assumed: true,
  summary: "The client's map layers, by name",
  response: { schema: successEnvelope(z.array(layerOut)) },
  handler(ctx) {
    const rows = clientRows(ctx, ctx.sandbox.world.tables.layers)
    return success(rows.sort((a, b) => a.name.localeCompare(b.name, 'es')).map(publicRow))
  },
})

export const deleteLayer = defineRoute({
  id: 'deleteLayer',
  method: 'DELETE',
  path: '/api/layers/:id',
  tag,
  auth: { kind: 'user', permission: 'catalogs:write' },
  errorShape: 'error',
  summary: 'Delete a map layer; a second delete answers 404',
  params: idParam(),
  response: { schema: z.object({ status: z.literal('success') }) },
  errors: { 401: 'Not authenticated', 403: 'No permission', 404: 'Unknown layer' },
  async handler(ctx) {
    const { layers } = ctx.sandbox.world.tables
    const layer = layers.get(ctx.params.id)
    if (!layer || layer.clientId !== clientOf(ctx)) throw notFound(`id: no layer with id ${ctx.params.id}`)
    await layers.remove(layer.id)
    return ok({ status: 'success' })
  },
})

/** The spec: `gps_details_id` is a UUID. */
const gpsParams = z.object({ gps_details_id: z.uuid('must be a UUID') })
const gpsOut = assumed(gpsDetailSchema.omit({ clientId: true }), 'GPS detail fields are not shown by the spec')

function gpsDetail(ctx: RouteContext<z.infer<typeof gpsParams>>) {
  const id = ctx.params.gps_details_id
  const row = ctx.sandbox.world.tables.gpsDetails.get(id.toLowerCase())
  if (!row || row.clientId !== clientOf(ctx)) throw notFound(`gps_details_id: no GPS device detail with id ${id}`)
  return success(publicRow(row))
}

export const listGpsDetails = defineRoute({
  id: 'listGpsDetails',
  method: 'GET',
  path: '/api/v1/gps/list',
  lists: 'gpsDetails',
  tag,
  auth: read,
  assumed: true,
  summary: "The client's GPS device details, by plate",
  response: { schema: successEnvelope(z.array(gpsOut)) },
  handler(ctx) {
    const rows = clientRows(ctx, ctx.sandbox.world.tables.gpsDetails)
    return success(rows.sort((a, b) => a.plate.localeCompare(b.plate)).map(publicRow))
  },
})

// Declared after the list: `/api/v1/gps/list` must not be read as an id by the RESTful route.
export const getGpsDetailLegacy = defineRoute({
  id: 'getGpsDetailLegacy',
  method: 'GET',
  path: '/api/v1/gps/get/:gps_details_id',
  idOf: 'gpsDetails',
  tag,
  auth: read,
  summary: 'One GPS device detail (legacy route; same body as GET /api/v1/gps/{gps_details_id})',
  params: gpsParams,
  response: { schema: successEnvelope(gpsOut) },
  errors: { 404: 'Unknown GPS device detail' },
  handler: gpsDetail,
})

export const getGpsDetail = defineRoute({
  id: 'getGpsDetail',
  method: 'GET',
  path: '/api/v1/gps/:gps_details_id',
  idOf: 'gpsDetails',
  tag,
  auth: read,
  summary: 'One GPS device detail (RESTful route)',
  params: gpsParams,
  response: { schema: successEnvelope(gpsOut) },
  errors: { 404: 'Unknown GPS device detail' },
  handler: gpsDetail,
})

const planOut = subscriptionPlanSchema

/** A positive integer in the path; `1.5`, `1e3` or `abc` are 400. */
const planId = z
  .string()
  .regex(/^\d{1,9}$/, 'must be an integer')
  .transform(Number)

export const getSubscriptionPlan = defineRoute({
  id: 'getSubscriptionPlan',
  method: 'GET',
  path: '/api/v1/subscription_plan/get/:plan_id',
  idOf: 'subscriptionPlans',
  tag,
  auth: read,
  summary: 'One subscription plan (bare object)',
  params: z.object({ plan_id: planId }),
  response: { schema: planOut },
  errors: { 404: 'Unknown plan' },
  handler(ctx) {
    const plan = ctx.sandbox.world.tables.subscriptionPlans.get(ctx.params.plan_id)
    if (!plan) throw notFound(`plan_id: no subscription plan with id ${ctx.params.plan_id}`)
    return ok(plan)
  },
})

export const listSubscriptionPlans = defineRoute({
  id: 'listSubscriptionPlans',
  method: 'GET',
  path: '/api/v1/subscription_plan/list',
  lists: 'subscriptionPlans',
  tag,
  auth: read,
  assumed: true,
  summary: 'Every subscription plan, by id',
  response: { schema: successEnvelope(z.array(planOut)) },
  handler(ctx) {
    if (!ctx.visible('subscriptionPlans')) return success([])
    return success(
      ctx.sandbox.world.tables.subscriptionPlans
        .all()
        .slice()
        .sort((a, b) => a.id - b.id),
    )
  },
})

export const catalogsRoutes = [
  listVehicleTypes,
  listLayers,
  deleteLayer,
  listGpsDetails,
  getGpsDetailLegacy,
  getGpsDetail,
  getSubscriptionPlan,
  listSubscriptionPlans,
]
