import type { RouteContext } from '../route/route.js'
import { ok, type Reply } from '../http/reply.js'
import { SHORTCUT_CLIENT } from './grants.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** `GET /__sandbox/agents`: the world's agent sessions (grants) and clients, as the inspector shows them. */
export function agentSessions(ctx: RouteContext): Reply {
  const { oauth, world } = ctx.sandbox
  const now = ctx.now()
  const nameOf = (id: string) =>
    id === SHORTCUT_CLIENT.client_id
      ? SHORTCUT_CLIENT.client_name
      : (oauth.clients.find((c) => c.client_id === id)?.client_name ?? null)
  return ok({
    sessions: oauth.grants.map((g) => ({
      id: g.id,
      client: { id: g.clientId, name: nameOf(g.clientId) },
      user: { id: g.userId, email: world.tables.users.get(g.userId)?.email ?? null },
      scope: g.scope,
      resource: g.resource,
      createdAt: iso(g.createdAt),
      accessExpiresAt: iso(g.accessExpiresAt),
      refreshExpiresAt: iso(g.refreshExpiresAt),
      rotations: g.rotations,
      status:
        g.revokedAt !== null
          ? 'revoked'
          : now < g.accessExpiresAt
            ? 'active'
            : g.refreshExpiresAt !== null && now < g.refreshExpiresAt
              ? 'refreshable'
              : 'expired',
      revokedAt: iso(g.revokedAt),
      revokedWhy: g.revokedWhy,
    })),
    clients: oauth.clients.map((c) => ({
      id: c.client_id,
      name: c.client_name,
      redirectUris: c.redirect_uris,
      grantTypes: c.grant_types,
      scope: c.scope,
      issuedAt: new Date(c.client_id_issued_at * 1000).toISOString(),
    })),
  })
}
