import { z } from 'zod'

export const invoiceStatusSchema = z.enum(['draft', 'published', 'paid'])
export const dteStatusSchema = z.enum(['SII_UPLOAD_UNCERTAIN', 'SII_PENDING', 'SII_ACCEPTED', 'SII_REJECTED'])

export const paymentSchema = z.object({
  id: z.string(),
  amount: z.number(),
  date: z.string(),
  method: z.string(),
  createdAt: z.string(),
})

/** Invoice and DTE fields as SANDBOX.md assumes them. */
export const invoiceSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  sequence: z.number().int(),
  number: z.string().nullable(),
  status: invoiceStatusSchema,
  receiver: z.object({ name: z.string(), taxId: z.string().nullable(), email: z.string() }),
  lines: z.array(z.object({ description: z.string(), quantity: z.number(), unitPrice: z.number() })),
  total: z.number(),
  balance: z.number(),
  payments: z.array(paymentSchema),
  dteId: z.string().nullable(),
  createdAt: z.string(),
  publishedAt: z.string().nullable(),
})

export const dteSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  invoiceId: z.string(),
  folio: z.number().int(),
  TrackID: z.string().nullable(),
  local_status: dteStatusSchema,
  references: z.array(z.object({ type: z.string(), folio: z.number().int().nullable(), reason: z.string() })),
  payments: z.array(paymentSchema),
  pendingSyncs: z.number().int(),
  outcome: z.enum(['accepted', 'rejected']),
  createdAt: z.string(),
  updatedAt: z.string(),
})

export const portalContactSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  email: z.string(),
  name: z.string(),
  roles: z.array(z.enum(['invoices', 'support'])),
})

export const ticketSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  contactId: z.string(),
  subject: z.string(),
  body: z.string(),
  status: z.enum(['open', 'pending', 'closed']),
  createdAt: z.string(),
})
