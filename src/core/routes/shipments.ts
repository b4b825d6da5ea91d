import type { RouteDef } from '../route.js'

export const shipmentsRoutes: RouteDef[] = []
