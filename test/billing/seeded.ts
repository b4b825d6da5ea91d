/** Billing paths and the seeded layout of the demo clients (src/core/billing seed), by sequence. */
export const INVOICES = '/api/v1/billing/invoices'
export const DTES = '/api/v1/dte/documents'
export const inv = (id: string, action?: string) => `${INVOICES}/${id}${action ? `/${action}` : ''}`

/** Seeded layout of the demo client (src/core/billing/seed.ts), by sequence. */
export const acme = {
  paid: 'inv_acme_0001',
  partlyPaid: 'inv_acme_0008',
  unpaidAccepted: 'inv_acme_0009',
  rejected: 'inv_acme_0010',
  pending: 'inv_acme_0011',
  genericReceiver: 'inv_acme_0012',
  noDte: 'inv_acme_0013',
  drafts: ['inv_acme_0014', 'inv_acme_0015', 'inv_acme_0016'],
  draftWithoutTaxId: 'inv_acme_0016',
}
export const other = { noDte: 'inv_other_0007', paid: 'inv_other_0001', firstDraft: 'inv_other_0008' }
