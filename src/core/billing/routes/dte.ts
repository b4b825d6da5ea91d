import * as z from 'zod'
import { dteView, resolveDte, syncDte } from '../dte.js'
import { notFound, ok, success } from '../../http/reply.js'
import { dteStatusSchema, publicDteSchema } from '../model.js'
import { type RouteContext, defineRoute } from '../../route/route.js'
import { pageEnvelope, recordId } from './invoices.js'
import { clientRows, owned } from '../../http/tenant.js'
import { pageQuery, paginate } from '../../http/pagination.js'
import { repeatable, successEnvelope } from '../../http/schemas.js'

const tag = 'dte'
const dteParams = z.object({ dteId: recordId })

const dteOf = (ctx: RouteContext<{ dteId: string }, any, any>) =>
  owned(ctx, ctx.sandbox.world.tables.dtes.get(ctx.params.dteId), 'DTE', ctx.params.dteId)

export const listDteDocuments = defineRoute({
  id: 'listDteDocuments',
  method: 'GET',
  path: '/api/v1/dte/documents',
  lists: 'dtes',
  tag,
  assumed: true,
  auth: { kind: 'user', permission: 'billing:read' },
  summary: "The client's DTEs, newest folio first; filter by local_status and invoiceId",
  query: pageQuery.extend({ local_status: repeatable(dteStatusSchema), invoiceId: recordId.optional() }),
  response: { schema: pageEnvelope(publicDteSchema) },
  errors: { 400: 'Invalid query', 401: 'Not authenticated', 403: 'No permission' },
  handler(ctx) {
    const { page, limit, local_status, invoiceId } = ctx.query
    const rows = clientRows(
      ctx,
      ctx.sandbox.world.tables.dtes,
      (d) => (!local_status || local_status.includes(d.local_status)) && (!invoiceId || d.invoiceId === invoiceId),
    ).sort((a, b) => b.folio - a.folio)
    return success(paginate(rows.map(dteView), page, limit))
  },
})

export const getDteDocument = defineRoute({
  id: 'getDteDocument',
  method: 'GET',
  path: '/api/v1/dte/documents/:dteId',
  idOf: 'dtes',
  tag,
  assumed: true,
  auth: { kind: 'user', permission: 'billing:read' },
  summary: 'One DTE: folio, TrackID, local_status, references and payments',
  params: dteParams,
  response: { schema: successEnvelope(publicDteSchema) },
  errors: { 400: 'Invalid id', 401: 'Not authenticated', 403: 'No permission', 404: 'Unknown DTE' },
  handler: (ctx) => success(dteView(dteOf(ctx))),
})

export const syncDteDocument = defineRoute({
  id: 'syncDteDocument',
  method: 'POST',
  path: '/api/v1/dte/documents/:dteId/sync',
  tag,
  auth: { kind: 'user', permission: 'billing:write' },
  summary:
    'Ask the tax authority about a DTE with a TrackID: pending, accepted or rejected (a settled DTE answers as it is)',
  params: dteParams,
  body: z.object({}).optional(),
  response: { schema: successEnvelope(publicDteSchema) },
  errors: {
    400: 'Invalid payload',
    401: 'Not authenticated',
    403: 'No permission',
    404: 'Unknown DTE',
    422: 'No TrackID: the upload outcome is uncertain',
  },
  handler: async (ctx) => success(dteView(await syncDte(ctx, dteOf(ctx)))),
})

/** Control API: the tax authority settles an uncertain or pending DTE (docs/contract.md). */
export const resolveDteControl = defineRoute({
  id: 'sandboxResolveDte',
  method: 'POST',
  path: '/__sandbox/dte/:dteId/resolve',
  tag: 'sandbox control',
  auth: { kind: 'control' },
  summary: 'The tax authority settles an uncertain or pending DTE as accepted or rejected; the folio is kept',
  params: dteParams,
  body: z.object({
    outcome: z.enum(['accepted', 'rejected'], {
      error: (issue) => (issue.input === undefined ? 'is required' : undefined),
    }),
  }),
  response: { schema: z.object({ dte: publicDteSchema }) },
  errors: { 400: 'Invalid payload', 404: 'Unknown DTE', 409: 'Already accepted or rejected' },
  async handler(ctx) {
    const dte = ctx.sandbox.world.tables.dtes.get(ctx.params.dteId)
    if (!dte) throw notFound(`dteId: no DTE with id ${ctx.params.dteId}`)
    return ok({ dte: dteView(await resolveDte(ctx.sandbox, dte, ctx.body.outcome)) })
  },
})

export const dteRoutes = [listDteDocuments, getDteDocument, syncDteDocument, resolveDteControl]
