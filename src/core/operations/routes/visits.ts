import * as z from 'zod'
import { badRequest, notFound, reply, success } from '../../http/reply.js'
import { visitDetailSchema, visitHistoryEntrySchema, visitImageSchema, visitStatuses } from '../model.js'
import { assumed } from '../../control/openapi.js'
import { FILE_LIMIT } from '../../http/request.js'
import { defineRoute, type RouteContext } from '../../app/route.js'
import type { RowOf } from '../../store/world.js'
import { byTime } from '../../sandbox/clock.js'
import { clientOf, clientRows, publicRow, successEnvelope, userOf } from '../../http/tenant.js'

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
    id: newUuid(ctx), visit_detail_id: visit.id, action, datetime: ctx.sandbox.iso(), change,
    user_id: user.id, user_name: user.name, user_email: user.email,
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
  id: 'listVisitDetails', method: 'GET', path: '/api/v1/visit_detail/list', tag, auth: read, assumed: true,
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
  id: 'getVisitDetail', method: 'GET', path: '/api/v1/visit_detail/get/:visitDetailId', tag, auth: read, assumed: true,
  summary: 'One technician visit with its images',
  params: visitParams,
  response: { schema: successEnvelope(visitOut) },
  errors: { 404: 'Unknown visit detail' },
  handler: (ctx) => success(publicRow(visitOf(ctx))),
})

export const getVisitHistory = defineRoute({
  id: 'getVisitHistory', method: 'GET', path: '/api/v1/visit_history/get/:visitDetailId', tag, auth: read,
  summary: 'History of a visit, oldest first (legacy route); entity names resolved from the ids in `change`',
  params: visitParams,
  response: { schema: z.array(visitHistoryEntrySchema) },
  errors: { 404: 'Unknown visit detail' },
  handler(ctx) {
    const visit = visitOf(ctx)
    if (ctx.scenario('empty')) return ctx.fault('empty'), reply(200, [])
    const entries = ctx.sandbox.world.tables.visitHistory.where((h) => h.visit_detail_id === visit.id)
    entries.sort((a, b) => (a.datetime < b.datetime ? -1 : a.datetime > b.datetime ? 1 : 0))
    return reply(200, entries.map((h) => ({
      id: h.id, visit_detail_id: h.visit_detail_id, action: h.action, datetime: h.datetime, change: h.change,
      user_id: h.user_id, user_name: h.user_name, user_email: h.user_email,
      entity_names_old: entityNames(ctx, visit, h.change, 'old'),
      entity_names_new: entityNames(ctx, visit, h.change, 'new'),
    })))
  },
})

/** What the first bytes of a file say it is: images and PDF only (SVG has none, so it is refused). */
const signatures: [type: string, test: (b: Uint8Array, text: (from: number, to: number) => string) => boolean][] = [
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/png', (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x)],
  ['image/gif', (_, t) => t(0, 6) === 'GIF87a' || t(0, 6) === 'GIF89a'],
  ['image/webp', (_, t) => t(0, 4) === 'RIFF' && t(8, 12) === 'WEBP'],
  ['image/bmp', (_, t) => t(0, 2) === 'BM'],
  ['image/tiff', (_, t) => t(0, 4) === 'II*\0' || t(0, 4) === 'MM\0*'],
  ['image/heic', (_, t) => t(4, 8) === 'ftyp' && ['heic', 'heix', 'hevc', 'hevx', 'mif1', 'msf1', 'heif'].includes(t(8, 12))],
  ['image/avif', (_, t) => t(4, 8) === 'ftyp' && ['avif', 'avis'].includes(t(8, 12))],
  ['application/pdf', (_, t) => t(0, 5) === '%PDF-'],
]

export function sniff(bytes: Uint8Array): string | undefined {
  const text = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to))
  return signatures.find(([, test]) => test(bytes, text))?.[0]
}

const aliases: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/heif': 'image/heic', 'image/x-ms-bmp': 'image/bmp' }
const normalType = (type: string) => {
  const t = type.split(';')[0].trim().toLowerCase()
  return aliases[t] ?? t
}

const MAX_FILES = 10

/** Checks every file before anything changes: one bad file refuses the whole upload. */
async function checkFiles(form: FormData): Promise<{ file: File; type: string; name: string }[]> {
  const entries = form.getAll('file')
  if (!entries.length) throw badRequest('file: is required (a multipart field named "file")')
  if (entries.length > MAX_FILES) throw badRequest(`file: must be at most ${MAX_FILES} files per upload`)
  const checked = []
  for (const [i, entry] of entries.entries()) {
    const field = entries.length === 1 ? 'file' : `file.${i}`
    if (typeof entry === 'string') throw badRequest(`${field}: must be a file, not a text value`)
    const name = entry.name.split(/[\\/]/).at(-1) || 'archivo'
    if (name.length > 255) throw badRequest(`${field}: the file name must be at most 255 characters`)
    if (entry.size === 0) throw badRequest(`${field}: "${name}" must not be empty`)
    if (entry.size > FILE_LIMIT) throw badRequest(`${field}: "${name}" must be at most ${FILE_LIMIT} bytes (10 MB); it has ${entry.size}`)
    const declared = normalType(entry.type)
    if (!declared.startsWith('image/') && declared !== 'application/pdf') {
      throw badRequest(`${field}: "${name}" must be an image (image/*) or a PDF (application/pdf); its declared type is ${entry.type || 'missing'}`)
    }
    const actual = sniff(new Uint8Array(await entry.slice(0, 16).arrayBuffer()))
    if (!actual) throw badRequest(`${field}: "${name}" is declared ${declared} but its content is not a known image or PDF format`)
    if (actual !== declared) throw badRequest(`${field}: "${name}" is declared ${declared} but its content is ${actual}`)
    checked.push({ file: entry, type: declared, name })
  }
  return checked
}

const uploadOut = assumed(z.object({ images: z.array(visitImageSchema), visit: visitOut }), 'Response fields are not shown by the spec')

export const uploadVisitFile = defineRoute({
  id: 'uploadVisitFile', method: 'POST', path: '/api/v1/visit_detail/upload/:visitDetailId', tag,
  auth: { kind: 'user', permission: 'visits:write' }, effect: true,
  summary: 'Upload images or PDFs to a visit (multipart field `file`, at most 10 MB each); each file adds an image and a history entry',
  params: visitParams,
  body: 'multipart',
  response: { status: 201, schema: successEnvelope(uploadOut), description: 'Files added to the visit' },
  errors: { 400: 'Invalid file (missing, empty, over 10 MB, or not an image or PDF by declared type and content)', 403: 'No permission', 404: 'Unknown visit detail' },
  async handler(ctx) {
    const visit = visitOf(ctx)
    const files = await checkFiles(ctx.form!)
    const at = ctx.sandbox.iso()
    const images = files.map(({ file, type, name }) => ({ id: newUuid(ctx), fileName: name, contentType: type, size: file.size, uploadedAt: at }))
    const updated = await ctx.sandbox.world.tables.visitDetails.update(visit.id, (v) => {
      v.images.push(...images)
      v.updatedAt = at
    })
    for (const image of images) await recordChange(ctx, updated!, 'image_uploaded', { image_id: { old: null, new: image.id } })
    return reply(201, { status: 'success', data: { images, visit: publicRow(updated!) } })
  },
})

export const visitsRoutes = [listVisitDetails, getVisitDetail, getVisitHistory, uploadVisitFile]
