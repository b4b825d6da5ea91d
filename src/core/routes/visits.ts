import type { RouteDef } from '../route.js'

export const visitsRoutes: RouteDef[] = []
