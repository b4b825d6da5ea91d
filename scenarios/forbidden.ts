import * as z from 'zod'
import { bearerToken, resolvePrincipal } from '../src/core/auth/principal.js'
import { HttpError } from '../src/core/http/reply.js'
import { defineScenario } from '../src/core/scenarios/define.js'

/** Left open so the app can still show who is signed in and sign out (docs/contract.md). */
const OPEN = new Set(['getMe', 'signOut'])

export default defineScenario({
  name: 'forbidden',
  description:
    'the signed-in user lacks every permission: 403 on every protected route except users/me (which lists no permissions) and sign-out',
  advice:
    'Hide or disable what the permissions from users/me do not allow, show a "you do not have access" page instead of an error on 403, never retry a 403, and keep sign-out reachable',
  options: z.strictObject({}),
  order: 40,
  appliesTo: (route) =>
    (route.auth.kind === 'user' || route.auth.kind === 'portal') && route.id !== 'getMe' && route.id !== 'signOut',
  // Before the body is read (a bad body or type still gets 403), after the caller is known:
  // an unauthenticated caller still gets the route's own 401.
  async edge(ctx) {
    const auth = ctx.route.auth
    if ((auth.kind !== 'user' && auth.kind !== 'portal') || OPEN.has(ctx.route.id)) return undefined
    try {
      const token = bearerToken(ctx.request)
      if (!token) return undefined
      await resolvePrincipal(ctx.sandbox, token, auth.kind)
    } catch {
      return undefined
    }
    ctx.fault('forbidden')
    if (auth.kind === 'portal') throw new HttpError(403, `role: the contact needs the functional role "${auth.role}"`)
    throw new HttpError(
      403,
      auth.permission
        ? `permission: ${auth.permission} is required for this operation`
        : 'permission: the user has no permission for this operation',
    )
  },
  // users/me stays open, but lists no permission left.
  after(ctx, reply) {
    if (ctx.route.id !== 'getMe' || reply.status !== 200) return reply
    const body = reply.body as { data: { permissions: string[] } }
    return { ...reply, body: { ...body, data: { ...body.data, permissions: [] } } }
  },
})
