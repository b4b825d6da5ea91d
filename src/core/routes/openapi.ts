import type { RouteDef } from '../route.js'

export const openapiRoutes: RouteDef[] = []
