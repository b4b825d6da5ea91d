import type { RouteDef } from '../core/route/route.js'
import { authRoutes } from '../core/auth/routes.js'
import { billingRoutes } from '../core/billing/routes/invoices.js'
import { catalogsRoutes } from '../core/operations/routes/catalogs.js'
import { controlRoutes } from '../core/control/routes.js'
import { agentControlRoutes } from '../core/agents/control-routes.js'
import { overrideRoutes } from '../core/overrides/routes.js'
import { inspectorRoutes } from '../core/control/inspector.js'
import { dteRoutes } from '../core/billing/routes/dte.js'
import { maintenanceRoutes } from '../core/operations/routes/maintenance.js'
import { notificationRoutes } from '../core/notifications/routes.js'
import { omnichannelRoutes } from '../core/operations/routes/omnichannel.js'
import { openapiRoutes } from '../core/control/openapi-route.js'
import { panelRoutes } from '../core/control/panel.js'
import { portalRoutes } from '../core/billing/routes/portal.js'
import { quotesRoutes } from '../core/operations/routes/quotes.js'
import { shipmentsRoutes } from '../core/operations/routes/shipments.js'
import { technicianRoutes } from '../core/operations/routes/technicians.js'
import { visitsRoutes } from '../core/operations/routes/visits.js'
import { driftRoutes } from '../core/bridge/routes.js'
import { contractRoutes } from '../core/contracts/routes.js'
import { conductRoutes } from '../core/conduct/routes.js'

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
