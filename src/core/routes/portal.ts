import type { RouteDef } from '../route.js'

export const portalRoutes: RouteDef[] = []
