import * as z from 'zod'

export const invoiceStatuses = ['draft', 'published', 'paid'] as const
export const dteStatuses = ['SII_UPLOAD_UNCERTAIN', 'SII_PENDING', 'SII_ACCEPTED', 'SII_REJECTED'] as const
export const paymentMethods = ['transfer', 'card', 'cash', 'check'] as const

export const invoiceStatusSchema = z.enum(invoiceStatuses)
export const dteStatusSchema = z.enum(dteStatuses)
export type InvoiceStatus = z.infer<typeof invoiceStatusSchema>
export type DteStatus = z.infer<typeof dteStatusSchema>

/** Amounts are Chilean pesos: integers, no decimals. */
export const paymentSchema = z.object({
  id: z.string(),
  amount: z.number().int().positive(),
  date: z.string(),
  method: z.enum(paymentMethods),
  createdAt: z.string(),
})

export const invoiceLineSchema = z.object({ description: z.string(), quantity: z.number(), unitPrice: z.number() })

/** Invoice and DTE fields as docs/billing.md and docs/assumptions.md assume them; `payments` records what register-payment adds. */
export const invoiceSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  sequence: z.number().int(),
  number: z.string().nullable(),
  status: invoiceStatusSchema,
  receiver: z.object({ name: z.string(), taxId: z.string().nullable(), email: z.string() }),
  lines: z.array(invoiceLineSchema),
  total: z.number(),
  balance: z.number().min(0),
  payments: z.array(paymentSchema),
  dteId: z.string().nullable(),
  createdAt: z.string(),
  publishedAt: z.string().nullable(),
})
export type Invoice = z.infer<typeof invoiceSchema>

/** A DTE reference ("Referencia"): a purchase order, or the rejected DTE a new emission replaces. */
export const dteReferenceSchema = z.object({ type: z.string(), folio: z.number().int().nullable(), reason: z.string() })

export const dteSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  invoiceId: z.string(),
  folio: z.number().int(),
  TrackID: z.string().nullable(),
  local_status: dteStatusSchema,
  references: z.array(dteReferenceSchema),
  payments: z.array(paymentSchema),
  /** Syncs the tax authority answered "pending" (the `dte-pending` scenario counts them); not public. */
  syncs: z.number().int().min(0),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Dte = z.infer<typeof dteSchema>

export const portalRoleSchema = z.enum(['invoices', 'support'])

/** A magic link sent to the outbox: single use, short-lived (sandbox clock, epoch ms). */
export const magicLinkSchema = z.object({ token: z.string(), expiresAt: z.number(), used: z.boolean() })

export const portalContactSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  email: z.string(),
  name: z.string(),
  roles: z.array(portalRoleSchema),
  /** Kept on the contact so they live in snapshots and die with a reset; never shown. */
  magicLinks: z.array(magicLinkSchema).optional(),
})

export const ticketStatusSchema = z.enum(['open', 'pending', 'closed'])

export const ticketSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  contactId: z.string(),
  subject: z.string(),
  body: z.string(),
  status: ticketStatusSchema,
  createdAt: z.string(),
})

/** Public shapes (OpenAPI): what the routes answer, without bookkeeping (an invoice keeps its clientId, docs/billing.md). */
export const publicInvoiceSchema = invoiceSchema
export const publicDteSchema = dteSchema.omit({ clientId: true, syncs: true })
export const publicTicketSchema = ticketSchema.omit({ clientId: true })
