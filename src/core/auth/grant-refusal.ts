/** The grants an agent JWT may name (agents/state.ts `OAuthState`), as far as auth reads them. */
interface Grants {
  grants: readonly { id: string; revokedAt: number | null; accessExpiresAt: number }[]
}

/** Why an agent JWT no longer opens the API though its signature and `exp` hold, or undefined. */
export function grantRefusal(state: Grants, grantId: unknown, now: number): string | undefined {
  if (typeof grantId !== 'string') return undefined
  const grant = state.grants.find((g) => g.id === grantId)
  if (!grant || grant.revokedAt !== null) return 'authorization: the agent token was revoked'
  if (now >= grant.accessExpiresAt) return 'authorization: the token has expired'
  return undefined
}
