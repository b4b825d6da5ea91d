import { hex, sha256Bytes } from '../http/bytes.js'
import { randomToken } from '../clock/random.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { RouteContext } from '../route/route.js'
import type { RowOf } from '../store/world.js'
import { AGENT_SCOPE, AGENT_TTL_S, signToken } from '../auth/tokens.js'
import type { AgentGrant, OAuthClient, OAuthState } from './state.js'
import { CODE_KEPT_MS, GRANT_LIMIT, REFRESH_TTL_MS } from './bounds.js'

/**
 * Grants and their tokens: what the OAuth server (oauth.ts, endpoints.ts; off the browser) and
 * the shortcut `POST /__sandbox/tokens/agent` (every runtime) share.
 */

/** Codes and refresh tokens are kept as these (hex SHA-256): a snapshot or the panel shows none. */
export async function hashOf(secret: string): Promise<string> {
  return hex(await sha256Bytes(secret))
}

/** The built-in client of `POST /__sandbox/tokens/agent`'s refresh tokens: public, no redirect URIs. */
export const SHORTCUT_CLIENT: OAuthClient = {
  client_id: 'sandbox-shortcut',
  client_name: 'POST /__sandbox/tokens/agent',
  redirect_uris: [],
  grant_types: ['refresh_token'],
  scope: AGENT_SCOPE,
  client_id_issued_at: 0,
}

export const userByEmail = (sandbox: Sandbox, email: string): RowOf<'users'> | undefined => {
  const address = email.trim().toLowerCase()
  return sandbox.world.tables.users.all().find((u) => u.email === address)
}

/** Drops what expired (codes 10 minutes after, grants 7 days after their end, for precise errors meanwhile). */
export function prune(state: OAuthState, now: number): void {
  const codes = state.codes.filter((c) => c.expiresAt + CODE_KEPT_MS > now)
  const grants = state.grants.filter((g) => Math.max(g.refreshExpiresAt ?? 0, g.accessExpiresAt) + 7 * 86_400_000 > now)
  if (codes.length === state.codes.length && grants.length === state.grants.length) return
  state.codes = codes
  state.grants = grants
  state.version++
}

export function revoke(state: OAuthState, grant: AgentGrant | undefined, now: number, why: string): void {
  if (!grant || grant.revokedAt !== null) return
  grant.revokedAt = now
  grant.revokedWhy = why
  state.version++
}

/** A refresh token names its grant: `rt_<grant>_<secret>`, so a rotated one that comes back is known as reuse. */
const REFRESH = /^rt_([0-9a-f]{16})_([0-9a-f]{64})$/
export const grantOfRefresh = (state: OAuthState, token: string): AgentGrant | undefined => {
  const m = REFRESH.exec(token)
  return m ? state.grants.find((g) => g.id === `agr_${m[1]}`) : undefined
}

export interface Issued {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
  refresh_token?: string
}

/** A new grant (a sign-in of an agent), with its first tokens. */
export async function openGrant(
  sandbox: Sandbox,
  user: RowOf<'users'>,
  clientId: string,
  scope: string,
  resource: string | null,
  refresh: boolean,
  issuer: string,
): Promise<{ grant: AgentGrant; issued: Issued }> {
  const now = sandbox.clock.now()
  const grant: AgentGrant = {
    id: randomToken('agr_', 8),
    clientId,
    userId: user.id,
    scope,
    resource,
    createdAt: now,
    refreshHash: null,
    refreshExpiresAt: null,
    accessExpiresAt: 0,
    rotations: 0,
    revokedAt: null,
    revokedWhy: null,
  }
  const issued = await issue(sandbox, grant, user, refresh, issuer)
  const state = sandbox.oauth
  state.grants.push(grant)
  if (state.grants.length > GRANT_LIMIT) state.grants.splice(0, state.grants.length - GRANT_LIMIT)
  state.version++
  return { grant, issued }
}

/** New tokens for a grant: an access token (the agent JWT) and, when asked, the next refresh token. */
export async function issue(
  sandbox: Sandbox,
  grant: AgentGrant,
  user: RowOf<'users'>,
  refresh: boolean,
  issuer: string,
  scope = grant.scope,
): Promise<Issued> {
  const now = sandbox.clock.now()
  const nowS = Math.floor(now / 1000)
  const access = await signToken(
    sandbox.signingKey,
    {
      kind: 'agent',
      sub: user.id,
      clientId: user.clientId,
      scope,
      exp: 0,
      aud: issuer,
      client_id: grant.clientId,
      grant: grant.id,
      sid: sandbox.id,
    },
    nowS,
    AGENT_TTL_S,
  )
  grant.accessExpiresAt = (nowS + AGENT_TTL_S) * 1000
  const issued: Issued = { access_token: access, token_type: 'Bearer', expires_in: AGENT_TTL_S, scope }
  if (refresh) {
    const token = `rt_${grant.id.slice(4)}_${randomToken('', 32)}`
    grant.refreshHash = await hashOf(token)
    grant.refreshExpiresAt = now + REFRESH_TTL_MS
    issued.refresh_token = token
  }
  sandbox.oauth.version++
  return issued
}

/** The sandbox's own URL as the request reached it (`issuer`): origin and any base path before the route's. */
export function issuerOf(ctx: RouteContext): string {
  return ctx.target.origin + ctx.target.base
}
