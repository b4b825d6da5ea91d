import { decodeJwt } from 'jose'
import type { SandboxParts } from '../sandbox/types.js'
import { grantRefusal } from './grant-refusal.js'
import { looksLikeJwt } from './tokens.js'

/** Whom a token names in this world, read without verifying or touching anything. */
export type TokenCaller =
  | { kind: 'session'; user: string; impersonator: string | null }
  | { kind: 'api-token'; user: string; row: string }
  | { kind: 'agent'; user: string }
  | { kind: 'portal'; contact: string; roles: string[] }

/**
 * The caller a bearer token names before auth runs (a scenario answering at the edge): a live
 * session of this world, an API token's row, an unexpired agent or portal token for an account
 * it holds; undefined for anything else. One reading for the scenarios that count by caller
 * (rate-limited) and the repro log that records who a request acted as, so a replay, signing in
 * again as that account, meets the same answer. A session's expiry does not slide here.
 */
export function tokenCaller(sandbox: SandboxParts, token: string): TokenCaller | undefined {
  const now = sandbox.clock.now()
  if (looksLikeJwt(token)) {
    let claims: Record<string, unknown>
    try {
      claims = decodeJwt(token)
    } catch {
      return undefined
    }
    if (typeof claims.exp === 'number' && claims.exp * 1000 <= now) return undefined
    const sub = String(claims.sub ?? '')
    if (claims.kind === 'portal' && sandbox.world.tables.portalContacts.get(sub))
      return { kind: 'portal', contact: sub, roles: Array.isArray(claims.roles) ? claims.roles.map(String) : [] }
    // An agent token whose grant expired or was revoked (session-expired turned on) opens nothing.
    if (
      claims.kind === 'agent' &&
      sandbox.world.tables.users.get(sub) &&
      !grantRefusal(sandbox.oauth, claims.grant, now)
    )
      return { kind: 'agent', user: sub }
    return undefined
  }
  if (token.startsWith('atk_')) {
    const row = sandbox.world.tables.apiTokens.all().find((t) => t.token === token && !t.revoked)
    return row ? { kind: 'api-token', user: row.userId, row: row.id } : undefined
  }
  const session = sandbox.sessions.get(token)
  if (!session || session.expiresAt <= now) return undefined
  return { kind: 'session', user: session.userId, impersonator: session.impersonatorId ?? null }
}
