import type { RouteContext } from '../route/route.js'
import { forbidden, notFound, ok, type Reply } from '../http/reply.js'
import { AGENT_SCOPE } from '../auth/tokens.js'
import { SHORTCUT_CLIENT, issuerOf, openGrant, prune, userByEmail } from './grants.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/**
 * `POST /__sandbox/tokens/agent`: what the OAuth flow ends with, without it (tests). A grant
 * like any other (listed, revocable, expired by `session-expired`); its refresh token belongs to
 * the built-in public client `sandbox-shortcut`.
 */
export async function mintAgentToken(ctx: RouteContext): Promise<Reply> {
  const body = ctx.body as { email: string; scope?: string; refresh?: boolean }
  const user = userByEmail(ctx.sandbox, body.email)
  if (!user) throw notFound(`email: no user with e-mail ${body.email}`)
  if (user.disabled)
    throw forbidden(`email: the account of ${body.email} is disabled; a disabled user gets no agent token`)
  prune(ctx.sandbox.oauth, ctx.now())
  const { grant, issued } = await openGrant(
    ctx.sandbox,
    user,
    SHORTCUT_CLIENT.client_id,
    body.scope ?? AGENT_SCOPE,
    null,
    body.refresh === true,
    issuerOf(ctx),
  )
  return ok({
    token: issued.access_token,
    expiresAt: iso(grant.accessExpiresAt),
    scope: grant.scope,
    clientId: SHORTCUT_CLIENT.client_id,
    ...(issued.refresh_token && { refreshToken: issued.refresh_token, refreshExpiresAt: iso(grant.refreshExpiresAt) }),
  })
}
