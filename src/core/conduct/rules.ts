import type { RouteInfo } from '../route/types.js'

/**
 * The rules a client of the API must follow (docs/conduct.md). What the pipeline needs to judge
 * them, and nothing more: their texts (the spec's words, what the app should do) are in
 * messages.ts, loaded with the report, so a page's entry does not carry them.
 */
export const RULE_NAMES = [
  'retried-refusal',
  'retried-write-blindly',
  'too-many-attempts',
  'retried-too-soon',
  'looped-on-401',
  'reused-refresh-token',
] as const

export type Rule = (typeof RULE_NAMES)[number]

/** A rule broken by the app, as `GET /__sandbox/conduct` answers it. */
export interface Finding {
  rule: Rule
  message: string
  operationId: string
  requests: number[]
  spec: string
}

/** A rule broken, as judged on the hot path: the facts its message is written from when asked for. */
export interface Judged {
  rule: Rule
  operationId: string
  requests: number[]
  /** `METHOD path?query` of the request. */
  what: string
  /** The attempt that broke it. */
  attempt: number
  /** The failure answer it followed (0: a cut connection). */
  after: number
  /** retried-too-soon: how long after the first attempt (or the last answer, under Retry-After) it came, and the wait asked (ms). */
  waited?: number
  asked?: number
  /** Whether the wait was the answer's Retry-After. */
  retryAfter?: boolean
}

/** Rows of attempts a world follows at once; the oldest goes first past it. */
export const MAX_ROWS = 128
/** Findings a world keeps; the oldest goes first past it (the journal's ids they name go too). */
export const MAX_FINDINGS = 100

/** The recommended backoff, counted from a row's first attempt: attempt 2, 3 and 4 (and later ones, as the 4th). */
export const BACKOFF_MS = [1000, 3000, 7000] as const
/** How early an attempt may arrive and still keep the backoff: the jitter of two arrivals measured at the sandbox. */
export const TOLERANCE_MS = 250
/** A row of attempts: the same request sent again within this long after a failure answer. */
export const ROW_WINDOW_MS = 60_000
/** The attempt that is one too many (Limits: at most 3 to 4). */
export const TOO_MANY = 5
/** The statuses never retried (Retry rules 2). */
export const REFUSALS: ReadonlySet<number> = new Set([400, 403, 404, 409, 422])
/** Ambiguous answers of a write with effects: 500, a time-out (504) and a cut connection (0). */
export const AMBIGUOUS: ReadonlySet<number> = new Set([0, 500, 504])

/** One request as the pipeline hands it, at the journal's tail: what the rules read. */
export interface Seen {
  id: number
  route: RouteInfo
  params: Record<string, string>
  /** What the rules read of the request: its headers (the caller's credential). */
  request: Pick<Request, 'headers'>
  /** The path the route table saw, and the query as sent (`?…` or ''). */
  path: string
  search: string
  status: number
  durationMs: number
  /** The answer's headers (`retry-after`). */
  headers: Record<string, string>
  clientAddress: string | undefined
  /** Real arrival time (ms since the epoch): not the sandbox clock, which tests move. */
  at: number
  faults: readonly string[]
  /** The body as read, or none (refused before it was read). */
  body: Uint8Array | undefined
}
