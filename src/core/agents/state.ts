/**
 * What a world keeps of agent access (docs/agents.md): registered OAuth clients, authorization
 * codes and grants (one per sign-in of an agent: its refresh token family and the access tokens
 * issued from it). Plain data, so snapshots and stored states keep it as it is; the logic lives
 * in server.ts, loaded on first use. Codes and refresh tokens are kept as SHA-256 hashes only.
 */
export interface OAuthClient {
  client_id: string
  client_name: string | null
  redirect_uris: string[]
  grant_types: string[]
  scope: string
  /** Sandbox clock, epoch seconds (RFC 7591 `client_id_issued_at`). */
  client_id_issued_at: number
}

export interface OAuthCode {
  hash: string
  clientId: string
  userId: string
  /** The `redirect_uri` of the authorization request, or null when it named none (one registered). */
  redirectUri: string | null
  challenge: string
  scope: string
  resource: string | null
  expiresAt: number
  usedAt: number | null
  /** The grant its exchange opened: revoked when the code is used again. */
  grant: string | null
}

export interface AgentGrant {
  id: string
  clientId: string
  userId: string
  scope: string
  resource: string | null
  createdAt: number
  /** Hash of the current refresh token; null for a grant without one (`/__sandbox/tokens/agent`). */
  refreshHash: string | null
  refreshExpiresAt: number | null
  /** When the last access token issued from it expires (`session-expired` brings it forward). */
  accessExpiresAt: number
  rotations: number
  revokedAt: number | null
  revokedWhy: string | null
}

export interface OAuthState {
  clients: OAuthClient[]
  codes: OAuthCode[]
  grants: AgentGrant[]
  /** Bumped on every change: the persistence port stores the state again only then. */
  version: number
}

export const emptyOAuth = (): OAuthState => ({ clients: [], codes: [], grants: [], version: 0 })
