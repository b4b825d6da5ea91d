import * as z from 'zod'
import { HttpError, errorBody } from '../src/core/http/reply.js'
import { defineScenario } from '../src/core/scenarios/define.js'

const options = z.strictObject({
  /** Share of reads that fail, from 0 to 1. */
  rate: z
    .number({ error: 'must be a number from 0 to 1' })
    .min(0, 'must be at least 0')
    .max(1, 'must be at most 1')
    .default(0.5),
  /** The status a failing read answers (502, 503 or 504); drawn from the seeded generator when absent. A Pact state pins it. */
  status: z.literal([502, 503, 504], { error: 'must be 502, 503 or 504' }).optional(),
})
export type DegradedOptions = z.infer<typeof options>

const failures = [
  [502, 'gateway: bad gateway, the upstream service answered nothing usable'],
  [503, 'gateway: service unavailable, temporarily degraded'],
  [504, 'gateway: time-out waiting for the upstream service'],
] as const

export default defineScenario({
  name: 'degraded',
  description:
    "reads (GET) fail with 502, 503 or 504 (or status) at rate (0 to 1), drawn from the sandbox's seeded generator so a run repeats exactly",
  advice:
    'Retry reads with backoff (they are safe), keep showing the last data you had with a "could not refresh" notice, and offer a manual retry; never retry writes blindly on 5xx',
  options,
  order: 20,
  appliesTo: (route) => route.method === 'GET' && route.auth.kind !== 'control',
  // A Pact state of a read it failed: every read fails, with the status recorded.
  pinned: (o, status) => ({ ...o, rate: 1, status: status as DegradedOptions['status'] }),
  edge(ctx, o) {
    if (ctx.request.method !== 'GET') return undefined
    const random = ctx.sandbox.random
    if (random() >= o.rate) return undefined
    const [status, message] =
      o.status === undefined
        ? failures[Math.min(2, Math.floor(random() * 3))]
        : failures.find(([code]) => code === o.status)!
    ctx.fault('degraded')
    // A gateway answers, not the module: the standard body.
    return { status, body: errorBody('standard', status, message), error: new HttpError(status, message) }
  },
})
