import type { Finding, Judged, Rule } from './rules.js'

/** Each rule's place in the spec and what the app should have done (docs/conduct.md). Loaded with the report. */
export const RULES: Record<Rule, { spec: string; should: string }> = {
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
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`

/** What the app did, in words. */
function said(j: Judged): string {
  const again = `${j.what} was sent again (attempt ${j.attempt})`
  const after = j.after === 0 ? 'a cut connection' : `its ${j.after}`
  switch (j.rule) {
    case 'retried-refusal':
      return `${again} after ${after}, which is never retried`
    case 'looped-on-401':
      return `${again} with the credential its 401 refused, with no new sign-in in between`
    case 'retried-write-blindly':
      return `${j.what} has external effects and was sent again (attempt ${j.attempt}) after ${after} with no read of its resource in between: it may have been applied twice`
    case 'retried-too-soon':
      return j.retryAfter
        ? `${again} ${seconds(j.waited!)} after ${after}, before the ${seconds(j.asked!)} its Retry-After asked`
        : `${again} ${seconds(j.waited!)} after its first attempt; the backoff allows it after ${seconds(j.asked!)}`
    case 'too-many-attempts':
      return `${j.what} was attempted ${j.attempt} times in a row after failure answers`
    case 'reused-refresh-token':
      return `${j.what} presented a refresh token the token endpoint refused (request ${j.requests[0]})`
  }
}

/** A finding as the report shows it: its message written, its place in the spec. */
export function findingOf(j: Judged): Finding {
  const rule = RULES[j.rule]
  return {
    rule: j.rule,
    message: `${said(j)}. Should: ${rule.should}.`,
    operationId: j.operationId,
    requests: [...j.requests],
    spec: rule.spec,
  }
}
