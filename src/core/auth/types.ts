import type { RowOf } from '../store/world.js'
import type { Permission } from './permissions.js'
import type { Session } from './sessions.js'

/** Who is calling: resolved once per request from the bearer token. */
export type Principal =
  | {
      kind: 'session' | 'api-token' | 'agent'
      token: string
      user: RowOf<'users'>
      clientId: string
      permissions: ReadonlySet<Permission>
      session?: Session
    }
  | { kind: 'portal'; token: string; contact: RowOf<'portalContacts'>; clientId: string; roles: readonly string[] }
