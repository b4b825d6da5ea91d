import type { RouteDef } from '../route.js'
import { authRoutes } from './auth.js'
import { billingRoutes } from './billing.js'
import { catalogsRoutes } from './catalogs.js'
import { controlRoutes } from './control.js'
import { dteRoutes } from './dte.js'
import { maintenanceRoutes } from './maintenance.js'
import { notificationRoutes } from './notifications.js'
import { omnichannelRoutes } from './omnichannel.js'
import { openapiRoutes } from './openapi.js'
import { panelRoutes } from './panel.js'
import { portalRoutes } from './portal.js'
import { quotesRoutes } from './quotes.js'
import { shipmentsRoutes } from './shipments.js'
import { technicianRoutes } from './technicians.js'
import { visitsRoutes } from './visits.js'

/** The route table: every endpoint, defined once. Runtimes, validation and OpenAPI derive from it. */
export const routes: RouteDef[] = [
  ...authRoutes,
  ...notificationRoutes,
  ...maintenanceRoutes,
  ...shipmentsRoutes,
  ...catalogsRoutes,
  ...technicianRoutes,
  ...visitsRoutes,
  ...quotesRoutes,
  ...omnichannelRoutes,
  ...billingRoutes,
  ...dteRoutes,
  ...portalRoutes,
  ...controlRoutes,
  ...openapiRoutes,
  ...panelRoutes,
]
