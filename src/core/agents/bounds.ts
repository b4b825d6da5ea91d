import { DAY } from '../clock/clock.js'

/** Per world (docs/bounds.md): past a cap the oldest goes first (a client with its codes and grants). */
export const CLIENT_LIMIT = 100
export const CODE_LIMIT = 100
export const GRANT_LIMIT = 500
/** Redirect URIs per client, and characters per URI or name. */
export const REDIRECT_LIMIT = 10
export const TEXT_LIMIT = 2000
/** An authorization code lives 60 s of sandbox clock (issue 32), and is kept 10 minutes past that to name reuse. */
export const CODE_TTL_MS = 60_000
export const CODE_KEPT_MS = 10 * 60_000
/** The spec's "30-day refresh"; each rotation starts a new 30 days (assumed: the spec says no more). */
export const REFRESH_TTL_MS = 30 * DAY
/** Form bodies of the OAuth endpoints. */
export const FORM_LIMIT = 16_384
