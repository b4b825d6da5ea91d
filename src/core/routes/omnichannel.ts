import type { RouteDef } from '../route.js'

export const omnichannelRoutes: RouteDef[] = []
