import type { RouteDef } from '../route.js'

export const maintenanceRoutes: RouteDef[] = []
