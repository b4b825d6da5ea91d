import { decodeJwt } from 'jose'
import { AGENT_SCOPE, looksLikeJwt, verifyToken } from '../core/auth/tokens.js'
import { bearerToken, resolvePrincipal } from '../core/auth/principal.js'
import { HttpError, errorBody } from '../core/http/reply.js'
import type { Sandbox } from '../core/sandbox/sandbox.js'

/** Where a client finds how to get a token for `/mcp` (RFC 9728), under the sandbox's base path. */
export const resourceMetadataUrl = (origin: string, base: string) =>
  `${origin}${base}/.well-known/oauth-protected-resource/mcp`

/**
 * The token `/mcp` takes: an agent JWT of this world with scope `service:api`, checked as the
 * API's guard checks it (src/core/auth/principal.ts). Answers the token, or the refusal:
 * 401 with `WWW-Authenticate: Bearer resource_metadata=...` (RFC 9728 §5.1), 403
 * `insufficient_scope` for a valid token without the scope (a session, an `atk_` token).
 */
export async function agentToken(request: Request, sandbox: Sandbox, metadata: string): Promise<string | Response> {
  let token: string | undefined
  try {
    token = bearerToken(request)
    if (!token)
      return refusal(
        401,
        'authorization: /mcp needs a Bearer agent token (OAuth 2.1; docs/agents.md)',
        `Bearer resource_metadata="${metadata}"`,
      )
    if (seen(sandbox, token)) return token
    const principal = await resolvePrincipal(sandbox, token, 'user')
    if (principal.kind !== 'agent')
      return insufficient(
        `scope: /mcp needs an agent token with scope ${AGENT_SCOPE}; a ${principal.kind} token has none`,
      )
    remember(sandbox, token)
    return token
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    if (error.status !== 401) return refusal(error.status, error.message)
    // A token of this world, valid but without the scope: 403, the client may ask for the scope.
    if (token && looksLikeJwt(token)) {
      const checked = await verifyToken(sandbox.signingKey, token, Math.floor(sandbox.clock.now() / 1000))
      if (checked.ok && checked.claims.kind === 'agent')
        return insufficient(`scope: the token's scope is "${checked.claims.scope}"; /mcp needs ${AGENT_SCOPE}`)
    }
    const challenge = `Bearer resource_metadata="${metadata}"${token ? ', error="invalid_token"' : ''}`
    return refusal(401, error.message, challenge)
  }
}

/**
 * Agent tokens this world's key has verified, by their expiry (epoch s): a client sends one
 * token with every call, and each call's request is checked again by the API's guard, so the
 * signature is not verified twice per call (`npm run bench -- --only mcp`). Only a success is
 * kept; anything else goes through the whole check. A restored world's key is another object:
 * its tokens are verified anew.
 */
const verified = new WeakMap<Uint8Array, Map<string, { exp: number; sub: string }>>()
const VERIFIED_MAX = 256

function seen(sandbox: Sandbox, token: string): boolean {
  const known = verified.get(sandbox.signingKey)?.get(token)
  if (!known || known.exp <= Math.floor(sandbox.clock.now() / 1000)) return false
  const user = sandbox.world.tables.users.get(known.sub)
  return user !== undefined && !user.disabled
}

function remember(sandbox: Sandbox, token: string): void {
  let known = verified.get(sandbox.signingKey)
  if (!known) verified.set(sandbox.signingKey, (known = new Map()))
  const { exp, sub } = decodeJwt(token)
  if (typeof exp !== 'number' || typeof sub !== 'string') return
  if (known.size >= VERIFIED_MAX) known.delete(known.keys().next().value!)
  known.set(token, { exp, sub })
}

const insufficient = (message: string) =>
  refusal(403, message, `Bearer error="insufficient_scope", scope="${AGENT_SCOPE}"`)

function refusal(status: number, message: string, challenge?: string): Response {
  return Response.json(errorBody('standard', status, message), {
    status,
    headers: challenge ? { 'www-authenticate': challenge } : {},
  })
}
