import type { Invoice } from './model.js'

/* The names and numbers of billing records: the seed and the routes make them alike. */

/** `cli_acme` -> `acme`: readable ids such as `inv_acme_0014` and `dte_acme_1009`. */
export const clientSlug = (clientId: string) => clientId.replace(/^cli_/, '')
export const invoiceIdFor = (clientId: string, sequence: number) =>
  `inv_${clientSlug(clientId)}_${String(sequence).padStart(4, '0')}`

/** Publishing follows the sequence, so the number is the sequence's (assumed format). */
export const invoiceNumber = (sequence: number) => `F-${String(sequence).padStart(6, '0')}`

export const invoiceTotal = (lines: Invoice['lines']) => lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0)

/** Folios are unique per client, so they make the id. */
export const dteIdFor = (clientId: string, folio: number) => `dte_${clientSlug(clientId)}_${folio}`
