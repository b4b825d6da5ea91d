import * as z from 'zod'
import { invoiceView } from '../invoices.js'
import { portalToken, redeemMagicLink, sendMagicLink } from '../magic-links.js'
import { forbidden, notFound, ok, reply, success } from '../../http/reply.js'
import {
  type Invoice,
  portalRoleSchema,
  publicInvoiceSchema,
  publicTicketSchema,
  ticketStatusSchema,
} from '../model.js'
import { type RouteContext, defineRoute } from '../../route/route.js'
import type { Sandbox } from '../../sandbox/sandbox.js'
import type { RowOf } from '../../store/world.js'
import { pageEnvelope, recordId } from './invoices.js'
import { clientOf, clientRows } from '../../http/tenant.js'
import { pageQuery, paginate } from '../../http/pagination.js'
import { emailAddress, repeatable, successEnvelope } from '../../http/schemas.js'

/** The client portal: its own magic-link sign-in and token, roles `invoices` and `support`. All assumed. */
const tag = 'client portal'
const invoicesRole = { kind: 'portal', role: 'invoices' } as const
const supportRole = { kind: 'portal', role: 'support' } as const
const email = emailAddress()

/** Spec rule 5: in the portal, a resource of another client is 403 (not 404 as in the backoffice). */
function ofTokenClient<T extends { clientId: string }>(
  ctx: RouteContext,
  row: T | undefined,
  what: string,
  id: string,
): T {
  if (!row) throw notFound(`id: no ${what} with id ${id}`)
  if (row.clientId !== clientOf(ctx))
    throw forbidden(`clientId: ${what} ${id} does not belong to the client of the portal token`)
  return row
}

/** Portal invoices carry a summary of their DTE; drafts are the issuer's work in progress and never shown. */
const portalInvoiceSchema = publicInvoiceSchema.extend({
  dte: z.object({ id: z.string(), folio: z.number().int(), local_status: z.string() }).nullable(),
})
function portalInvoice(sandbox: Sandbox, invoice: Invoice) {
  const dte = invoice.dteId ? sandbox.world.tables.dtes.get(invoice.dteId) : undefined
  return { ...invoiceView(invoice), dte: dte ? { id: dte.id, folio: dte.folio, local_status: dte.local_status } : null }
}
const ticketView = ({ clientId: _, ...rest }: RowOf<'tickets'>) => rest

export const requestMagicLink = defineRoute({
  id: 'portalMagicLink',
  method: 'POST',
  path: '/api/portal/auth/magic-link',
  tag,
  assumed: true,
  effect: true,
  summary:
    'Send a sign-in link to a portal contact; always 200 (no enumeration), the token goes to the outbox (magic-link)',
  auth: { kind: 'public' },
  body: z.object({ email }),
  response: { schema: z.object({ status: z.literal('success'), message: z.string() }) },
  errors: { 400: 'Invalid payload' },
  async handler(ctx) {
    await sendMagicLink(ctx.sandbox, ctx.body.email)
    return ok({ status: 'success', message: 'If the address belongs to a portal contact, a sign-in link was sent' })
  },
})

export const verifyMagicLink = defineRoute({
  id: 'portalVerify',
  signsIn: { kind: 'portal', token: '$response.body#/data/token' },
  method: 'POST',
  path: '/api/portal/auth/verify',
  tag,
  assumed: true,
  summary: 'Redeem a magic link (once, within 15 minutes) for a portal token: a signed JWT carrying clientId and roles',
  auth: { kind: 'public' },
  body: z.object({ token: z.string().trim().min(1).max(200) }),
  response: {
    schema: successEnvelope(
      z.object({
        token: z.string(),
        expiresAt: z.string(),
        contact: z.object({
          id: z.string(),
          email: z.string(),
          clientId: z.string(),
          roles: z.array(portalRoleSchema),
        }),
      }),
    ),
  },
  errors: { 400: 'Invalid payload', 401: 'Unknown, used or expired magic link' },
  async handler(ctx) {
    const contact = await redeemMagicLink(ctx.sandbox, ctx.body.token)
    const { token, expiresAt } = await portalToken(ctx.sandbox, contact)
    return success({
      token,
      expiresAt,
      contact: { id: contact.id, email: contact.email, clientId: contact.clientId, roles: [...contact.roles] },
    })
  },
})

export const listPortalInvoices = defineRoute({
  id: 'portalListInvoices',
  method: 'GET',
  path: '/api/portal/invoices',
  lists: 'invoices',
  tag,
  assumed: true,
  auth: invoicesRole,
  summary: "The token client's published and paid invoices, newest first",
  query: pageQuery.extend({ status: repeatable(z.enum(['published', 'paid'])) }),
  response: { schema: pageEnvelope(portalInvoiceSchema) },
  errors: {
    400: 'Invalid query',
    401: 'Not authenticated (or not a portal token)',
    403: 'The contact lacks the invoices role',
  },
  handler(ctx) {
    const { page, limit, status } = ctx.query
    const rows = clientRows(
      ctx,
      ctx.sandbox.world.tables.invoices,
      (i) => i.status !== 'draft' && (!status || status.includes(i.status as 'published' | 'paid')),
    ).sort((a, b) => b.sequence - a.sequence)
    return success(
      paginate(
        rows.map((i) => portalInvoice(ctx.sandbox, i)),
        page,
        limit,
      ),
    )
  },
})

export const getPortalInvoice = defineRoute({
  id: 'portalGetInvoice',
  method: 'GET',
  path: '/api/portal/invoices/:id',
  idOf: 'invoices',
  tag,
  assumed: true,
  auth: invoicesRole,
  summary: 'One published or paid invoice of the token client',
  params: z.object({ id: recordId }),
  response: { schema: successEnvelope(portalInvoiceSchema) },
  errors: {
    400: 'Invalid id',
    401: 'Not authenticated',
    403: 'No invoices role, or the invoice belongs to another client',
    404: 'Unknown invoice (or a draft)',
  },
  handler(ctx) {
    // Another client's invoice is 403 whatever its state; only the token client's drafts are hidden (404).
    const invoice = ofTokenClient(ctx, ctx.sandbox.world.tables.invoices.get(ctx.params.id), 'invoice', ctx.params.id)
    if (invoice.status === 'draft') throw notFound(`id: no invoice with id ${ctx.params.id}`)
    return success(portalInvoice(ctx.sandbox, invoice))
  },
})

export const listTickets = defineRoute({
  id: 'portalListTickets',
  method: 'GET',
  path: '/api/portal/support/tickets',
  lists: 'tickets',
  tag,
  assumed: true,
  auth: supportRole,
  summary: "The token client's support tickets, newest first",
  query: pageQuery.extend({ status: repeatable(ticketStatusSchema) }),
  response: { schema: pageEnvelope(publicTicketSchema) },
  errors: { 400: 'Invalid query', 401: 'Not authenticated', 403: 'The contact lacks the support role' },
  handler(ctx) {
    const { page, limit, status } = ctx.query
    const rows = clientRows(ctx, ctx.sandbox.world.tables.tickets, (t) => !status || status.includes(t.status)).sort(
      (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id),
    )
    return success(paginate(rows.map(ticketView), page, limit))
  },
})

export const getTicket = defineRoute({
  id: 'portalGetTicket',
  method: 'GET',
  path: '/api/portal/support/tickets/:id',
  idOf: 'tickets',
  tag,
  assumed: true,
  auth: supportRole,
  summary: 'One support ticket of the token client',
  params: z.object({ id: recordId }),
  response: { schema: successEnvelope(publicTicketSchema) },
  errors: {
    400: 'Invalid id',
    401: 'Not authenticated',
    403: 'No support role, or the ticket belongs to another client',
    404: 'Unknown ticket',
  },
  handler: (ctx) =>
    success(
      ticketView(ofTokenClient(ctx, ctx.sandbox.world.tables.tickets.get(ctx.params.id), 'ticket', ctx.params.id)),
    ),
})

export const createTicket = defineRoute({
  id: 'portalCreateTicket',
  method: 'POST',
  path: '/api/portal/support/tickets',
  tag,
  assumed: true,
  auth: supportRole,
  effect: true,
  summary: 'Open a support ticket as the signed-in contact',
  body: z.object({
    subject: z.string().trim().min(1, 'is required').max(200),
    body: z.string().trim().min(1, 'is required').max(5000),
  }),
  response: { status: 201, schema: successEnvelope(publicTicketSchema) },
  errors: { 400: 'Invalid payload', 401: 'Not authenticated', 403: 'The contact lacks the support role' },
  async handler(ctx) {
    const p = ctx.principal
    if (p?.kind !== 'portal') throw forbidden('authorization: this route needs a portal token')
    const ticket = await ctx.sandbox.world.tables.tickets.insert({
      id: ctx.sandbox.ids.take('tkt_'),
      clientId: p.clientId,
      contactId: p.contact.id,
      subject: ctx.body.subject,
      body: ctx.body.body,
      status: 'open',
      createdAt: ctx.sandbox.iso(),
    })
    return reply(201, { status: 'success', data: ticketView(ticket) })
  },
})

export const portalRoutes = [
  requestMagicLink,
  verifyMagicLink,
  listPortalInvoices,
  getPortalInvoice,
  listTickets,
  getTicket,
  createTicket,
]
