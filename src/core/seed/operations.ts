import type { WorldRows } from '../store/world.js'
import type { SeedContext } from './context.js'

type OperationsRows = Pick<WorldRows, 'vehicleTypes' | 'layers' | 'gpsDetails' | 'subscriptionPlans' | 'serviceProviders' | 'technicians' | 'visitDetails' | 'visitHistory' | 'quotes' | 'threads' | 'messages' | 'whatsappStatus'>

/** Catalogs, maintenance, technicians, visits, quotes and omnichannel data of every client. */
export function seedOperations(_ctx: SeedContext): OperationsRows {
  return { vehicleTypes: [], layers: [], gpsDetails: [], subscriptionPlans: [], serviceProviders: [], technicians: [], visitDetails: [], visitHistory: [], quotes: [], threads: [], messages: [], whatsappStatus: [] }
}
