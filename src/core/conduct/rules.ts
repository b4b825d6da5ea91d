/**
 * The rules a client of the API must follow, as the spec words them (docs/conduct.md): each
 * finding names its rule, the spec's section and item, and what the app should have done.
 */
export const RULES = {
  'retried-refusal': {
    spec: 'Retry rules 2',
    should:
      'never resend a 400, 403, 404, 409 or 422: show the refusal (the field to fix, no access, gone, the conflict after reloading the resource) and let the user decide',
  },
  'retried-write-blindly': {
    spec: 'Retry rules 3',
    should:
      'after a 500, a time-out or a cut connection on a write with external effects, read the resource (and its effects) before resending, and resend only when the read shows it did not go through',
  },
  'too-many-attempts': {
    spec: 'Limits Recommended backoff',
    should:
      'stop after the 4th attempt (at most 3 to 4), show the error with a manual retry and keep what is on screen',
  },
  'retried-too-soon': {
    spec: 'Limits Recommended backoff',
    should:
      'wait as the spec recommends, counted from the first attempt: attempt 2 after 1 s, attempt 3 after 3 s, attempt 4 after 7 s; at least Retry-After when the answer sends it',
  },
  'looped-on-401': {
    spec: 'Authentication 4',
    should:
      'on 401 drop the token and sign in again, then retry with the new token; never resend with the token refused',
  },
  'reused-refresh-token': {
    spec: 'Authentication 8',
    should:
      'on invalid_grant from a refresh drop both tokens and start the sign-in again (authorization code with PKCE); never present the refused refresh token again',
  },
} as const

export type Rule = keyof typeof RULES
export const RULE_NAMES = Object.keys(RULES) as Rule[]

/** A rule broken by the app: the requests that make it (journal ids) and what the app should have done. */
export interface Finding {
  rule: Rule
  message: string
  operationId: string
  requests: number[]
  spec: string
}

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
