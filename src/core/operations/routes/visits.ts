import * as z from 'zod'
import { notFound, reply, success } from '../../http/reply.js'
import { visitDetailSchema, visitHistoryEntrySchema, visitImageSchema, visitStatuses } from '../model.js'
import { assumed } from '../../http/assumed.js'
import { checkFiles } from '../files.js'
import { defineRoute, type RouteContext } from '../../route/route.js'
import type { RowOf } from '../../store/world.js'
import { byTime } from '../../clock/clock.js'
import { clientOf, clientRows, publicRow, userOf } from '../../http/tenant.js'
import { successEnvelope } from '../../http/schemas.js'

const tag = 'visits'
const read = { kind: 'user', permission: 'visits:read' } as const
const visitParams = z.object({ visitDetailId: z.string().min(1).max(128) })
const visitOut = assumed(visitDetailSchema.omit({ clientId: true }), 'Visit detail fields are not shown by the spec')
type Visit = RowOf<'visitDetails'>
/** The helpers below serve routes with different param schemas. */
type Ctx = RouteContext<any, any, any>

function visitOf(ctx: Ctx): Visit {
  const id = ctx.params.visitDetailId
  const row = ctx.sandbox.world.tables.visitDetails.get(id)
  if (!row || row.clientId !== clientOf(ctx)) throw notFound(`visitDetailId: no visit detail with id ${id}`)
  return row
}

/** Sequential, readable UUIDs for records the sandbox creates (stable across runs and snapshots). */
function newUuid(ctx: Ctx): string {
  return `00000000-0000-4000-8000-${ctx.sandbox.ids.take('').padStart(12, '0')}`
}

/**
 * Every change to a visit goes through here, so each one leaves a history entry by the
 * signed-in user.
 */
async function recordChange(ctx: Ctx, visit: Visit, action: string, change: RowOf<'visitHistory'>['change']) {
  const { user } = userOf(ctx)
  await ctx.sandbox.world.tables.visitHistory.insert({
    id: newUuid(ctx),
    visit_detail_id: visit.id,
    action,
    datetime: ctx.sandbox.iso(),
    change,
    user_id: user.id,
    user_name: user.name,
    user_email: user.email,
  })
}

/**
 * Ids in `change` resolved to names when read. A deleted technician or provider resolves to
 * `null`: the name leaves the history with the record.
 */
const resolvers: Record<string, (ctx: Ctx, visit: Visit, id: string) => string | null> = {
  technician_id: (ctx, visit, id) => {
    const t = ctx.sandbox.world.tables.technicians.get(id)
    return t && t.clientId === visit.clientId ? t.name : null
  },
  service_provider_id: (ctx, visit, id) => {
    const p = ctx.sandbox.world.tables.serviceProviders.get(id)
    return p && p.clientId === visit.clientId ? p.name : null
  },
  image_id: (_ctx, visit, id) => visit.images.find((i) => i.id === id)?.fileName ?? null,
}

function entityNames(ctx: Ctx, visit: Visit, change: RowOf<'visitHistory'>['change'], side: 'old' | 'new') {
  const names: Record<string, string | null> = {}
  for (const [field, values] of Object.entries(change)) {
    const resolve = resolvers[field]
    if (!resolve) continue
    const id = values[side]
    names[field] = typeof id === 'string' ? resolve(ctx, visit, id) : null
  }
  return names
}

export const listVisitDetails = defineRoute({
  id: 'listVisitDetails',
  method: 'GET',
  path: '/api/v1/visit_detail/list',
  lists: 'visitDetails',
  tag,
  auth: read,
  assumed: true,
  summary: "The client's technician visits, latest scheduled first; optional `status` filter",
  query: z.object({ status: z.enum(visitStatuses).optional() }),
  response: { schema: successEnvelope(z.array(visitOut)) },
  handler(ctx) {
    const { status } = ctx.query
    const rows = clientRows(ctx, ctx.sandbox.world.tables.visitDetails, (v) => !status || v.status === status)
    return success(rows.sort((a, b) => byTime(b.scheduledAt, a.scheduledAt)).map(publicRow))
  },
})

export const getVisitDetail = defineRoute({
  id: 'getVisitDetail',
  method: 'GET',
  path: '/api/v1/visit_detail/get/:visitDetailId',
  idOf: 'visitDetails',
  tag,
  auth: read,
  assumed: true,
  summary: 'One technician visit with its images',
  params: visitParams,
  response: { schema: successEnvelope(visitOut) },
  errors: { 404: 'Unknown visit detail' },
  handler: (ctx) => success(publicRow(visitOf(ctx))),
})

export const getVisitHistory = defineRoute({
  id: 'getVisitHistory',
  method: 'GET',
  path: '/api/v1/visit_history/get/:visitDetailId',
  lists: 'visitHistory',
  idOf: 'visitDetails',
  tag,
  auth: read,
  summary: 'History of a visit, oldest first (legacy route); entity names resolved from the ids in `change`',
  params: visitParams,
  response: { schema: z.array(visitHistoryEntrySchema) },
  errors: { 404: 'Unknown visit detail' },
  handler(ctx) {
    const visit = visitOf(ctx)
    if (!ctx.visible('visitHistory')) return reply(200, [])
    const entries = ctx.sandbox.world.tables.visitHistory.by('visit_detail_id', visit.id)
    entries.sort((a, b) => (a.datetime < b.datetime ? -1 : a.datetime > b.datetime ? 1 : 0))
    return reply(
      200,
      entries.map((h) => ({
        id: h.id,
        visit_detail_id: h.visit_detail_id,
        action: h.action,
        datetime: h.datetime,
        change: h.change,
        user_id: h.user_id,
        user_name: h.user_name,
        user_email: h.user_email,
        entity_names_old: entityNames(ctx, visit, h.change, 'old'),
        entity_names_new: entityNames(ctx, visit, h.change, 'new'),
      })),
    )
  },
})

const uploadOut = assumed(
  z.object({ images: z.array(visitImageSchema), visit: visitOut }),
  'Response fields are not shown by the spec',
)

export const uploadVisitFile = defineRoute({
  id: 'uploadVisitFile',
  method: 'POST',
  path: '/api/v1/visit_detail/upload/:visitDetailId',
  tag,
  auth: { kind: 'user', permission: 'visits:write' },
  effect: true,
  summary:
    'Upload images or PDFs to a visit (multipart field `file`, at most 10 MB each); each file adds an image and a history entry',
  params: visitParams,
  body: 'multipart',
  response: { status: 201, schema: successEnvelope(uploadOut), description: 'Files added to the visit' },
  errors: {
    400: 'Invalid file (missing, empty, over 10 MB, or not an image or PDF by declared type and content)',
    403: 'No permission',
    404: 'Unknown visit detail',
  },
  async handler(ctx) {
    const visit = visitOf(ctx)
    const files = await checkFiles(ctx.form!)
    const at = ctx.sandbox.iso()
    const images = files.map(({ file, type, name }) => ({
      id: newUuid(ctx),
      fileName: name,
      contentType: type,
      size: file.size,
      uploadedAt: at,
    }))
    const updated = await ctx.sandbox.world.tables.visitDetails.update(visit.id, (v) => {
      v.images.push(...images)
      v.updatedAt = at
    })
    for (const image of images)
      await recordChange(ctx, updated!, 'image_uploaded', { image_id: { old: null, new: image.id } })
    return reply(201, { status: 'success', data: { images, visit: publicRow(updated!) } })
  },
})

export const visitsRoutes = [listVisitDetails, getVisitDetail, getVisitHistory, uploadVisitFile]
