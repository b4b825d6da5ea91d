import type { RouteDef } from '../route.js'

export const dteRoutes: RouteDef[] = []
