import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'
import { tooManyRequests } from './rate-limited.js'

const options = z.strictObject({
  /** Seconds sent in `Retry-After`; null sends no header. */
  retryAfter: z
    .number({ error: 'must be a number of seconds or null' })
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(3600, 'must be at most 3600')
    .nullable()
    .default(1),
})

export default defineScenario({
  name: 'rate-limit-exhausted',
  description: '429 on every request, however often it is retried: clients must give up after their last attempt',
  advice:
    'Stop after the 4th attempt of the backoff schedule, show a clear "too many requests, try again later" error with a manual retry, keep what is already on screen, and never loop',
  options,
  // Before rate-limited: once exhausted, no attempt goes through.
  order: 10,
  appliesTo: (route) => route.auth.kind !== 'control',
  edge(ctx, o) {
    ctx.fault('rate-limit-exhausted')
    return tooManyRequests(
      `rate limit: the usage limit is exhausted for ${ctx.request.method} ${ctx.url.pathname}; give up and try again later`,
      o.retryAfter,
    )
  },
})
