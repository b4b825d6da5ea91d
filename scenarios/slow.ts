import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'

const ms = (what: string) =>
  z
    .number({ error: `must be a number of milliseconds (${what})` })
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(60_000, 'must be at most 60000')

const options = z
  .strictObject({
    /** Latency of every response, in milliseconds. */
    ms: ms('latency').default(1000),
    /** With max: a latency drawn from min..max (seeded) instead of ms. */
    min: ms('lower bound').optional(),
    max: ms('upper bound').optional(),
  })
  .superRefine((o, ctx) => {
    if ((o.min === undefined) !== (o.max === undefined))
      ctx.addIssue({ code: 'custom', path: [o.min === undefined ? 'min' : 'max'], message: 'min and max go together' })
    else if (o.min !== undefined && o.max !== undefined && o.min > o.max)
      ctx.addIssue({ code: 'custom', path: ['min'], message: 'must not be above max' })
  })
export type SlowOptions = z.infer<typeof options>

/** Real latency, on a timer: the sandbox keeps answering other requests meanwhile. */
export default defineScenario({
  name: 'slow',
  description:
    "latency ms (default 1000) on every response, or a latency drawn from min..max by the sandbox's seeded generator",
  advice:
    'Show loading states (skeletons, disabled buttons) at once, keep the page usable, guard against double submits, and set request time-outs that tell the user what happened',
  options,
  // Last: the latency comes on top of whatever the other scenarios did.
  order: 95,
  appliesTo: (route) => route.auth.kind !== 'control',
  async after(ctx, reply, o) {
    const delay =
      o.min !== undefined && o.max !== undefined ? o.min + Math.floor(ctx.sandbox.random() * (o.max - o.min + 1)) : o.ms
    await new Promise((resolve) => setTimeout(resolve, delay))
    ctx.fault('slow')
    return reply
  },
})
