import * as z from 'zod'
import { HttpError, errorBody } from '../src/core/http/reply.js'
import type { RouteContext } from '../src/core/route/route.js'
import { defineScenario } from '../src/core/scenarios/define.js'
import { tokenCaller } from '../src/core/auth/caller.js'

const options = z.strictObject({
  /** Attempts refused before each distinct request goes through. */
  failures: z
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(100, 'must be at most 100')
    .default(3),
  /** Seconds sent in `Retry-After`; null sends no header. */
  retryAfter: z
    .number({ error: 'must be a number of seconds or null' })
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(3600, 'must be at most 3600')
    .nullable()
    .default(1),
})
export type RateLimitedOptions = z.infer<typeof options>

/** Counters are bounded: the oldest request keys go first. */
const MAX_KEYS = 10_000

/**
 * The caller as a rate limiter sees it: the bearer token when it names a caller of this world
 * (src/core/auth/caller.ts), else the client address. A token the world does not know (another
 * world's, an expired session's) counts as its address: a repro bundle carries no token, and its
 * replay, signed in as the same account or not at all, counts the same.
 */
export function callerOf(ctx: RouteContext): string {
  const m = /^Bearer\s+(\S+)/i.exec(ctx.request.headers.get('authorization') ?? '')
  return m && tokenCaller(ctx.sandbox, m[1]) ? `token:${m[1]}` : `address:${ctx.clientAddress ?? 'unknown'}`
}

/** A gateway's 429: the standard body whatever the route's module answers, so clients meet one shape. */
export function tooManyRequests(message: string, retryAfter: number | null) {
  const headers: Record<string, string> = retryAfter === null ? {} : { 'retry-after': String(retryAfter) }
  return {
    status: 429,
    body: errorBody('standard', 429, message),
    headers,
    error: new HttpError(429, message, headers),
  }
}

export default defineScenario({
  name: 'rate-limited',
  description:
    'each distinct request (method, path, caller) fails with 429 for its first `failures` attempts (default 3), then succeeds; Retry-After sent unless retryAfter is null; body {statusCode:429, message, error}',
  advice:
    'Retry reads with the spec\'s backoff (immediately, then after 1 s, 3 s and 7 s; at least Retry-After when sent; 4 attempts at most), show a "retrying" state rather than an error, and never retry writes blindly',
  options,
  order: 11,
  appliesTo: (route) => route.auth.kind !== 'control',
  edge(ctx, o) {
    const counts =
      (ctx.sandbox.scenarioState.get('rate-limited') as Map<string, number> | undefined) ?? new Map<string, number>()
    ctx.sandbox.scenarioState.set('rate-limited', counts)
    const key = `${ctx.request.method} ${ctx.url.pathname} ${callerOf(ctx)}`
    const attempt = (counts.get(key) ?? 0) + 1
    counts.delete(key)
    counts.set(key, attempt)
    if (counts.size > MAX_KEYS) counts.delete(counts.keys().next().value!)
    if (attempt > o.failures) return undefined
    ctx.fault('rate-limited')
    const wait = o.retryAfter === null ? '' : `; retry after ${o.retryAfter} s`
    return tooManyRequests(
      `rate limit: attempt ${attempt} of ${ctx.request.method} ${ctx.url.pathname} refused (${o.failures} refused before it goes through)${wait}`,
      o.retryAfter,
    )
  },
})
