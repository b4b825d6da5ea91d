import { HttpError, unauthorized } from '../http/reply.js'
import type { RouteContext, RouteDef } from '../route/route.js'
import { bearerToken, requirePermission, resolvePrincipal } from './principal.js'

export const CONTROL_TOKEN_HEADER = 'x-sandbox-control-token'

/**
 * Where every route's auth rule is checked, once, before validation and the handler: the
 * backoffice and portal tokens (spec, Authentication), and the control token of `/__sandbox`.
 */
export async function authorize(route: RouteDef, ctx: RouteContext, controlToken: string | undefined): Promise<void> {
  const auth = route.auth
  if (auth.kind === 'control') {
    // A page (the panel) holds no state and cannot send headers with a navigation.
    if (!auth.page && controlToken && ctx.request.headers.get(CONTROL_TOKEN_HEADER) !== controlToken) {
      throw new HttpError(401, `${CONTROL_TOKEN_HEADER}: the control API needs the token given with --control-token`)
    }
    return
  }
  if (auth.kind === 'public') return
  const token = bearerToken(ctx.request)
  if (!token) throw unauthorized('authorization: a Bearer token is required')
  ctx.principal = await resolvePrincipal(ctx.sandbox, token, auth.kind)
  if (auth.kind === 'user') requirePermission(ctx.principal, auth.permission)
  else if (ctx.principal.kind === 'portal' && !ctx.principal.roles.includes(auth.role)) {
    throw new HttpError(403, `role: the contact needs the functional role "${auth.role}"`)
  }
}
