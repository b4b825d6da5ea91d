import type { RouteDef } from '../route.js'

export const technicianRoutes: RouteDef[] = []
