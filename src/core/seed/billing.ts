import type { WorldRows } from '../store/world.js'
import type { SeedContext } from './context.js'

type BillingRows = Pick<WorldRows, 'invoices' | 'dtes' | 'tickets'>

/** Invoices in sequence, their DTEs and portal tickets of every client. */
export function seedBilling(_ctx: SeedContext): BillingRows {
  return { invoices: [], dtes: [], tickets: [] }
}
