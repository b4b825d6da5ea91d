import { HttpError, forbidden, unauthorized } from '../http/reply.js'
import type { Principal } from './types.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { type Permission, rolePermissions } from './permissions.js'
import type { Session } from './sessions.js'
import { decodeJwt } from 'jose'
import { looksLikeJwt, verifyToken } from './tokens.js'
import { grantRefusal } from './grant-refusal.js'

export type { Principal }

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  if (!header) return undefined
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!m) throw unauthorized('authorization: must be "Bearer <token>"')
  return m[1]
}

function userPrincipal(
  sandbox: Sandbox,
  kind: 'session' | 'api-token' | 'agent',
  token: string,
  userId: string,
  session?: Session,
): Principal {
  const user = sandbox.world.tables.users.get(userId)
  if (!user) throw unauthorized('authorization: the token belongs to no user')
  if (user.disabled) throw forbidden('user: the account is disabled')
  return { kind, token, user, clientId: user.clientId, permissions: new Set(rolePermissions[user.role]), session }
}

/**
 * The spec's token rules: session tokens and `atk_` API tokens, agent JWTs like sessions,
 * legacy JWTs refused with 401; portal tokens only on the portal surface.
 */
export async function resolvePrincipal(
  sandbox: Sandbox,
  token: string,
  surface: 'user' | 'portal',
): Promise<Principal> {
  const now = sandbox.clock.now()
  if (looksLikeJwt(token)) {
    const result = await verifyToken(sandbox.signingKey, token, Math.floor(now / 1000))
    if (!result.ok) {
      if (result.reason === 'legacy')
        throw unauthorized('authorization: legacy signed JWTs are no longer accepted; sign in again')
      if (result.reason === 'expired') throw unauthorized('authorization: the token has expired')
      throw unauthorized(otherWorld(sandbox, token) ?? 'authorization: the token is not valid')
    }
    const claims = result.claims
    if (claims.kind === 'portal') {
      if (surface !== 'portal') throw unauthorized('authorization: portal tokens do not open backoffice routes')
      const contact = sandbox.world.tables.portalContacts.get(claims.sub)
      if (!contact) throw unauthorized('authorization: the portal contact no longer exists')
      return { kind: 'portal', token, contact, clientId: contact.clientId, roles: contact.roles }
    }
    if (surface === 'portal') throw unauthorized('authorization: backoffice tokens do not open portal routes')
    if (claims.scope !== 'service:api') throw unauthorized('authorization: agent tokens need scope service:api')
    const refused = grantRefusal(sandbox.oauth, claims.grant, now)
    if (refused) throw unauthorized(refused)
    return userPrincipal(sandbox, 'agent', token, claims.sub)
  }
  if (surface === 'portal') throw unauthorized('authorization: backoffice tokens do not open portal routes')
  if (token.startsWith('atk_')) {
    const row = sandbox.world.tables.apiTokens.all().find((t) => t.token === token)
    if (!row || row.revoked) throw unauthorized('authorization: unknown or revoked API token')
    return userPrincipal(sandbox, 'api-token', token, row.userId)
  }
  const session = sandbox.sessions.get(token)
  if (!session) throw unauthorized('authorization: unknown or signed-out session')
  if (!sandbox.sessions.touch(session, now)) throw unauthorized('authorization: the session has expired; sign in again')
  return userPrincipal(sandbox, 'session', token, session.userId, session)
}

/** A token another world signed (its `sid`): said so, since each world has its own key. */
function otherWorld(sandbox: Sandbox, token: string): string | undefined {
  try {
    const { sid } = decodeJwt(token)
    if (typeof sid === 'string' && sid !== sandbox.id)
      return `authorization: the token was signed by sandbox ${sid.slice(0, 128)}, not this one (${sandbox.id}): each x-sandbox-id has its own tokens`
  } catch {}
  return undefined
}

export function requirePermission(principal: Principal, permission: Permission | undefined): void {
  if (!permission || principal.kind === 'portal') return
  if (!principal.permissions.has(permission))
    throw new HttpError(403, `permission: ${permission} is required for this operation`)
}
