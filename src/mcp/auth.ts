import { AGENT_SCOPE, looksLikeJwt, verifyToken } from '../core/auth/tokens.js'
import { bearerToken, resolvePrincipal } from '../core/auth/principal.js'
import { HttpError, errorBody } from '../core/http/reply.js'
import type { Sandbox } from '../core/sandbox/sandbox.js'

/** Where a client finds how to get a token for `/mcp` (RFC 9728), under the sandbox's base path. */
export const resourceMetadataUrl = (origin: string, base: string) => `${origin}${base}/.well-known/oauth-protected-resource/mcp`

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
    if (!token) return refusal(401, 'authorization: /mcp needs a Bearer agent token (OAuth 2.1; docs/agents.md)', `Bearer resource_metadata="${metadata}"`)
    const principal = await resolvePrincipal(sandbox, token, 'user')
    if (principal.kind !== 'agent') return insufficient(`scope: /mcp needs an agent token with scope ${AGENT_SCOPE}; a ${principal.kind} token has none`)
    return token
  } catch (error) {
    if (!(error instanceof HttpError)) throw error
    if (error.status !== 401) return refusal(error.status, error.message)
    // A token of this world, valid but without the scope: 403, the client may ask for the scope.
    if (token && looksLikeJwt(token)) {
      const checked = await verifyToken(sandbox.signingKey, token, Math.floor(sandbox.clock.now() / 1000))
      if (checked.ok && checked.claims.kind === 'agent') return insufficient(`scope: the token's scope is "${checked.claims.scope}"; /mcp needs ${AGENT_SCOPE}`)
    }
    const challenge = `Bearer resource_metadata="${metadata}"${token ? ', error="invalid_token"' : ''}`
    return refusal(401, error.message, challenge)
  }
}

const insufficient = (message: string) => refusal(403, message, `Bearer error="insufficient_scope", scope="${AGENT_SCOPE}"`)

function refusal(status: number, message: string, challenge?: string): Response {
  return Response.json(errorBody('standard', status, message), { status, headers: challenge ? { 'www-authenticate': challenge } : {} })
}
