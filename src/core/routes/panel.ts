import type { RouteDef } from '../route.js'

export const panelRoutes: RouteDef[] = []
