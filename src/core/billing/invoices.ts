import { conflict, unprocessable } from '../http/reply.js'
import type { Invoice, paymentMethods } from './model.js'
import type { RouteContext } from '../route/route.js'
import { invoiceLifecycle } from './invoice-lifecycle.js'
import { invoiceNumber } from './ids.js'

export type BillingContext = Pick<RouteContext, 'sandbox' | 'applied' | 'fault'>

/** The public invoice: the Invoice fields of docs/billing.md (clientId included) and its payments. */
export function invoiceView(invoice: Invoice): Invoice {
  return { ...invoice }
}

/** How refusals name an invoice. */
export const invoiceSubject = (invoice: Invoice) => `invoice ${invoice.id}`

/** draft -> published with its number; every earlier invoice of the sequence must be published first. */
export async function publishInvoice(ctx: BillingContext, invoice: Invoice): Promise<Invoice> {
  const to = invoiceLifecycle.next(invoice.status, 'publish', 'published', invoiceSubject(invoice))
  const { invoices } = ctx.sandbox.world.tables
  const earlier = invoices
    .where((i) => i.clientId === invoice.clientId && i.sequence < invoice.sequence && i.status === 'draft')
    .sort((a, b) => a.sequence - b.sequence)[0]
  if (earlier) {
    throw conflict(
      `sequence: invoice ${earlier.id} (sequence ${earlier.sequence}) comes before ${invoice.id} (sequence ${invoice.sequence}) and is still a draft; publish it first`,
    )
  }
  const at = ctx.sandbox.iso()
  return (await invoices.update(invoice.id, (d) => {
    d.status = to
    d.number = invoiceNumber(invoice.sequence)
    d.publishedAt = at
  }))!
}

export interface PaymentInput {
  amount: number
  date?: string
  method?: (typeof paymentMethods)[number]
}

/**
 * Records a payment on the invoice and on its current DTE; the one that brings the balance to
 * 0 marks the invoice paid. State conflicts are 409 (table); an amount above the balance 422.
 */
export async function registerPayment(ctx: BillingContext, invoice: Invoice, input: PaymentInput): Promise<Invoice> {
  invoiceLifecycle.allow(invoice.status, 'register-payment', invoiceSubject(invoice))
  if (input.amount > invoice.balance) {
    throw unprocessable(
      `amount: ${input.amount} is above the balance of ${invoice.id} (${invoice.balance}); a payment must be at most the balance`,
    )
  }
  const to = invoiceLifecycle.next(
    invoice.status,
    'register-payment',
    input.amount === invoice.balance ? 'paid' : 'published',
    invoiceSubject(invoice),
  )
  const { invoices, dtes } = ctx.sandbox.world.tables
  const at = ctx.sandbox.iso()
  const payment = {
    id: ctx.sandbox.ids.take('pay_'),
    amount: input.amount,
    date: input.date ?? at.slice(0, 10),
    method: input.method ?? 'transfer',
    createdAt: at,
  }
  const updated = (await invoices.update(invoice.id, (d) => {
    d.payments.push(payment)
    d.balance -= input.amount
    d.status = to
  }))!
  if (invoice.dteId && dtes.get(invoice.dteId)) {
    await dtes.update(invoice.dteId, (d) => {
      d.payments.push({ ...payment })
      d.updatedAt = at
    })
  }
  return updated
}

/** One outbox e-mail per recipient and per send: blind retries show up as duplicates. */
export function sendInvoiceEmail(ctx: BillingContext, invoice: Invoice, to: readonly string[] | undefined) {
  invoiceLifecycle.allow(invoice.status, 'send-email', invoiceSubject(invoice))
  const recipients = [...new Set(to ?? [invoice.receiver.email])]
  const issuer = ctx.sandbox.world.tables.clients.get(invoice.clientId)?.name ?? invoice.clientId
  const at = ctx.sandbox.iso()
  return recipients.map((address) => {
    const entry = ctx.sandbox.outbox.add('email', at, {
      to: address,
      subject: `Factura ${invoice.number} de ${issuer}`,
      ref: invoice.id,
    })
    return { to: address, outboxId: entry.id }
  })
}
