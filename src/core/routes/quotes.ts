import type { RouteDef } from '../route.js'

export const quotesRoutes: RouteDef[] = []
