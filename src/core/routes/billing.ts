import type { RouteDef } from '../route.js'

export const billingRoutes: RouteDef[] = []
