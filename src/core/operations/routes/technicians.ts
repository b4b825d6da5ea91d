import * as z from 'zod'
import { notFound, ok, success } from '../../http/reply.js'
import { technicianSchema } from '../model.js'
import { assumed } from '../../http/assumed.js'
import { defineRoute, type RouteContext } from '../../route/route.js'
import { clientOf, clientRows, publicRow } from '../../http/tenant.js'
import { idParam, successEnvelope } from '../../http/schemas.js'

const tag = 'technicians'
const read = { kind: 'user', permission: 'technicians:read' } as const
const technicianOut = assumed(technicianSchema.omit({ clientId: true }), 'Technician fields are not shown by the spec')

function technicianOf(ctx: RouteContext<Record<string, string>>) {
  const row = ctx.sandbox.world.tables.technicians.get(ctx.params.id)
  if (!row || row.clientId !== clientOf(ctx)) throw notFound(`id: no technician with id ${ctx.params.id}`)
  return row
}

export const listTechnicians = defineRoute({
  id: 'listTechnicians',
  method: 'GET',
  path: '/api/v1/technician/list',
  lists: 'technicians',
  tag,
  auth: read,
  assumed: true,
  summary: "The client's field technicians, by name",
  response: { schema: successEnvelope(z.array(technicianOut)) },
  handler(ctx) {
    const rows = clientRows(ctx, ctx.sandbox.world.tables.technicians)
    return success(rows.sort((a, b) => a.name.localeCompare(b.name, 'es')).map(publicRow))
  },
})

export const getTechnician = defineRoute({
  id: 'getTechnician',
  method: 'GET',
  path: '/api/v1/technician/get/:id',
  idOf: 'technicians',
  tag,
  auth: read,
  assumed: true,
  summary: 'One field technician',
  params: idParam(),
  response: { schema: successEnvelope(technicianOut) },
  errors: { 404: 'Unknown technician' },
  handler: (ctx) => success(publicRow(technicianOf(ctx))),
})

/**
 * Removes the technician for good: it leaves the lists, a second delete is 404, and visit
 * history entries that name it resolve its id to `null` (the visits keep the bare id).
 */
export const deleteTechnician = defineRoute({
  id: 'deleteTechnician',
  method: 'DELETE',
  path: '/api/v1/technician/delete/:id',
  tag,
  auth: { kind: 'user', permission: 'technicians:write' },
  summary: 'Delete a field technician; answers an empty JSON object',
  params: idParam(),
  response: { schema: z.object({}), description: 'An empty JSON object' },
  errors: { 403: 'No permission', 404: 'Unknown technician' },
  async handler(ctx) {
    const technician = technicianOf(ctx)
    await ctx.sandbox.world.tables.technicians.remove(technician.id)
    return ok({})
  },
})

export const technicianRoutes = [listTechnicians, getTechnician, deleteTechnician]
