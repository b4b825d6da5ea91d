import type { RouteDef } from '../route.js'

export const catalogsRoutes: RouteDef[] = []
