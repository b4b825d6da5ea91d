import type { RouteDef } from './context.js'

export type { AuthRule, Method, RouteInfo, ServeOptions } from './types.js'
export type { AppView, RouteContext, RouteDef } from './context.js'

/** Keeps the handler's context typed by the route's schemas. */
export function defineRoute<P = Record<string, string>, Q = Record<string, unknown>, B = undefined>(
  def: RouteDef<P, Q, B>,
): RouteDef<P, Q, B> {
  return def
}

/** What a sandbox serves: `--strict` drops assumed routes, `--no-control` the control API. */
export function servedRoutes(
  routes: readonly RouteDef[],
  options: { strict?: boolean; control?: unknown },
): RouteDef[] {
  return routes.filter(
    (r) => !(options.strict && r.assumed) && !(options.control === false && r.auth.kind === 'control'),
  )
}
