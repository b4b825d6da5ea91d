import type { InvoiceStatus } from './model.js'
import { Lifecycle } from './lifecycle.js'

export const invoiceEvents = ['publish', 'emit-dte', 'send-email', 'register-payment'] as const
export type InvoiceEvent = (typeof invoiceEvents)[number]

/**
 * Invoice: draft -> published -> paid. Every state x event is listed. State conflicts answer
 * 409 (spec: "published out of sequence", "a payment has an incompatible state"); emit-dte on a
 * draft is a DTE precondition, 422 (docs/billing.md: emit-dte needs a published invoice, else 422).
 * Publishing also needs every predecessor in the sequence published (checked in publish).
 */
export const invoiceLifecycle = new Lifecycle<InvoiceStatus, InvoiceEvent>('status', [
  { from: 'draft', on: 'publish', to: ['published'] },
  { from: 'published', on: 'publish', refuse: 409, because: 'it was already published; publishing twice is refused' },
  { from: 'paid', on: 'publish', refuse: 409, because: 'it was already published and paid' },

  { from: 'draft', on: 'emit-dte', refuse: 422, because: 'a DTE needs a published invoice; publish it first' },
  { from: 'published', on: 'emit-dte', to: ['published'] },
  { from: 'paid', on: 'emit-dte', to: ['paid'] },

  { from: 'draft', on: 'send-email', refuse: 409, because: 'only a published invoice can be sent; publish it first' },
  { from: 'published', on: 'send-email', to: ['published'] },
  { from: 'paid', on: 'send-email', to: ['paid'] },

  {
    from: 'draft',
    on: 'register-payment',
    refuse: 409,
    because: 'payments need a published invoice; publish it first',
  },
  // Partial payment stays published; the one that brings the balance to 0 marks it paid.
  { from: 'published', on: 'register-payment', to: ['published', 'paid'] },
  { from: 'paid', on: 'register-payment', refuse: 409, because: 'it is fully paid; its balance is 0' },
])
