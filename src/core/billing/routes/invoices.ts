import * as z from 'zod'
import { dteView, emitDte } from '../dte.js'
import { invoiceView, publishInvoice, registerPayment, sendInvoiceEmail } from '../invoices.js'
import { HttpError, success } from '../../http/reply.js'
import { invoiceStatusSchema, paymentMethods, publicDteSchema, publicInvoiceSchema } from '../model.js'
import { type RouteContext, defineRoute } from '../../route/route.js'
import { clientRows, owned } from '../../http/tenant.js'
import { pageQuery, paginate, paginationSchema } from '../../http/pagination.js'
import { emailAddress, repeatable, successEnvelope } from '../../http/schemas.js'

const tag = 'billing'
const read = { kind: 'user', permission: 'billing:read' } as const
const write = { kind: 'user', permission: 'billing:write' } as const

/** Ids of invoices, DTEs and tickets: what a path segment may be before it is looked up. */
export const recordId = z.string().regex(/^[\w-]{1,128}$/, 'must be 1 to 128 letters, digits, "_" or "-"')

/** Paginated lists answer `{status:'success', data:{items, pagination}}` (docs/routes.md). */
export const pageEnvelope = (item: z.ZodType) =>
  successEnvelope(z.object({ items: z.array(item), pagination: paginationSchema }))

/** publish and emit-dte take `{}` (or no body); any other JSON value is refused. */
const emptyBody = z.object({}).optional()
const email = emailAddress('A recipient')
const invoiceParams = z.object({ id: recordId })

const invoiceOf = (ctx: RouteContext<{ id: string }, any, any>) =>
  owned(ctx, ctx.sandbox.world.tables.invoices.get(ctx.params.id), 'invoice', ctx.params.id)

export const listInvoices = defineRoute({
  id: 'listInvoices',
  method: 'GET',
  path: '/api/v1/billing/invoices',
  lists: 'invoices',
  tag,
  assumed: true,
  auth: read,
  summary: "The client's invoices by sequence, newest first (order=asc for oldest first); filter by status",
  query: pageQuery.extend({ status: repeatable(invoiceStatusSchema), order: z.enum(['asc', 'desc']).default('desc') }),
  response: { schema: pageEnvelope(publicInvoiceSchema) },
  errors: { 400: 'Invalid query', 401: 'Not authenticated', 403: 'No permission' },
  handler(ctx) {
    const { page, limit, status, order } = ctx.query
    const rows = clientRows(ctx, ctx.sandbox.world.tables.invoices, (i) => !status || status.includes(i.status)).sort(
      (a, b) => (order === 'asc' ? a.sequence - b.sequence : b.sequence - a.sequence),
    )
    return success(paginate(rows.map(invoiceView), page, limit))
  },
})

export const getInvoice = defineRoute({
  id: 'getInvoice',
  method: 'GET',
  path: '/api/v1/billing/invoices/:id',
  idOf: 'invoices',
  tag,
  assumed: true,
  auth: read,
  summary: 'One invoice with its payments and current DTE id',
  params: invoiceParams,
  response: { schema: successEnvelope(publicInvoiceSchema) },
  errors: { 400: 'Invalid id', 401: 'Not authenticated', 403: 'No permission', 404: 'Unknown invoice' },
  handler: (ctx) => success(invoiceView(invoiceOf(ctx))),
})

export const publish = defineRoute({
  id: 'publishInvoice',
  method: 'POST',
  path: '/api/v1/billing/invoices/:id/publish',
  tag,
  auth: write,
  effect: true,
  summary:
    'Publish a draft: it gets its number. Every earlier invoice of the sequence must be published first (payload {} assumed)',
  params: invoiceParams,
  body: emptyBody,
  response: { schema: successEnvelope(publicInvoiceSchema) },
  errors: {
    400: 'Invalid payload',
    401: 'Not authenticated',
    403: 'No permission',
    404: 'Unknown invoice',
    409: 'Already published, or an earlier invoice of the sequence is still a draft',
  },
  handler: async (ctx) => success(invoiceView(await publishInvoice(ctx, invoiceOf(ctx)))),
})

export const emit = defineRoute({
  id: 'emitDte',
  method: 'POST',
  path: '/api/v1/billing/invoices/:id/emit-dte',
  tag,
  auth: write,
  effect: true,
  summary:
    'Emit the DTE of a published invoice: a folio, the upload to the tax authority, then SII_PENDING with a TrackID (payload {} assumed)',
  params: invoiceParams,
  body: emptyBody,
  response: { schema: successEnvelope(publicDteSchema) },
  errors: {
    400: 'Invalid payload',
    401: 'Not authenticated',
    403: 'No permission',
    404: 'Unknown invoice',
    409: 'A DTE of the invoice is pending, uncertain or accepted; or the folio range is exhausted',
    422: 'Not published, no receiver tax id, or a line that is not positive',
    500: 'dte-upload-uncertain (response 500): the upload outcome is unknown',
    504: 'dte-upload-uncertain: the tax authority did not answer in time',
  },
  async handler(ctx) {
    const { dte, uncertain } = await emitDte(ctx, invoiceOf(ctx))
    // The effect is committed; only the answer looks like a failure, as a real time-out would.
    if (uncertain?.response === 504)
      throw new HttpError(
        504,
        'upstream: the tax authority did not answer in time; check the invoice and its DTE before retrying',
      )
    if (uncertain?.response === 500)
      throw new HttpError(
        500,
        'internal error: the upload to the tax authority failed midway; check the invoice and its DTE before retrying',
      )
    return success(dteView(dte))
  },
})

export const sendEmail = defineRoute({
  id: 'sendInvoiceEmail',
  method: 'POST',
  path: '/api/v1/billing/invoices/:id/send-email',
  tag,
  auth: write,
  effect: true,
  summary:
    'E-mail a published invoice to `to` (default: its receiver); every send is an outbox e-mail (payload assumed)',
  params: invoiceParams,
  body: z
    .object({
      to: z.array(email).min(1, 'must list at least one address').max(20, 'must list at most 20 addresses').optional(),
    })
    .optional(),
  response: {
    schema: successEnvelope(
      z.object({ invoiceId: z.string(), sent: z.array(z.object({ to: z.string(), outboxId: z.string() })) }),
    ),
  },
  errors: {
    400: 'Invalid payload',
    401: 'Not authenticated',
    403: 'No permission',
    404: 'Unknown invoice',
    409: 'The invoice is a draft',
  },
  handler(ctx) {
    const invoice = invoiceOf(ctx)
    return success({ invoiceId: invoice.id, sent: sendInvoiceEmail(ctx, invoice, ctx.body?.to) })
  },
})

export const payment = defineRoute({
  id: 'registerPayment',
  method: 'POST',
  path: '/api/v1/billing/invoices/:id/register-payment',
  tag,
  auth: write,
  effect: true,
  summary:
    'Register a payment (CLP, at most the balance) on a published invoice and its DTE; the full balance marks it paid (payload assumed)',
  params: invoiceParams,
  body: z.object({
    amount: z.number().int('must be an integer number of pesos (CLP)').positive('must be greater than 0'),
    date: z.iso.date({ error: 'must be an ISO 8601 date (2026-01-31)' }).optional(),
    method: z.enum(paymentMethods).optional(),
  }),
  response: { schema: successEnvelope(publicInvoiceSchema) },
  errors: {
    400: 'Invalid payload (amount not a positive integer)',
    401: 'Not authenticated',
    403: 'No permission',
    404: 'Unknown invoice',
    409: 'The invoice is a draft or already paid',
    422: 'The amount is above the balance',
  },
  handler: async (ctx) => success(invoiceView(await registerPayment(ctx, invoiceOf(ctx), ctx.body))),
})

export const billingRoutes = [listInvoices, getInvoice, publish, emit, sendEmail, payment]
