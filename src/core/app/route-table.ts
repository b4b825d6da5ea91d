import type { RouteDef } from './route.js'
import { authRoutes } from '../auth/routes.js'
import { billingRoutes } from '../billing/routes/invoices.js'
import { catalogsRoutes } from '../operations/routes/catalogs.js'
import { controlRoutes } from '../control/routes.js'
import { agentControlRoutes } from '../agents/control-routes.js'
import { overrideRoutes } from '../overrides/routes.js'
import { inspectorRoutes } from '../control/inspector.js'
import { dteRoutes } from '../billing/routes/dte.js'
import { maintenanceRoutes } from '../operations/routes/maintenance.js'
import { notificationRoutes } from '../notifications/routes.js'
import { omnichannelRoutes } from '../operations/routes/omnichannel.js'
import { openapiRoutes } from '../control/openapi-route.js'
import { panelRoutes } from '../control/panel.js'
import { portalRoutes } from '../billing/routes/portal.js'
import { quotesRoutes } from '../operations/routes/quotes.js'
import { shipmentsRoutes } from '../operations/routes/shipments.js'
import { technicianRoutes } from '../operations/routes/technicians.js'
import { visitsRoutes } from '../operations/routes/visits.js'
import { driftRoutes } from '../bridge/routes.js'
import { contractRoutes } from '../contracts/routes.js'
import { conductRoutes } from '../conduct/routes.js'

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
  ...agentControlRoutes,
  ...overrideRoutes,
  ...inspectorRoutes,
  ...driftRoutes,
  ...contractRoutes,
  ...conductRoutes,
  ...openapiRoutes,
  ...panelRoutes,
]
