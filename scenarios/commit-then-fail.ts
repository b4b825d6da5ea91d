import * as z from 'zod'
import { HttpError } from '../src/core/http/reply.js'
import { defineScenario } from '../src/core/scenarios/define.js'

const options = z.strictObject({
  /** Instead of a 500, hold the answer past this many milliseconds (the client's time-out), then 504. */
  timeoutMs: z
    .number({ error: 'must be a number of milliseconds' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(120_000, 'must be at most 120000')
    .optional(),
})
export type CommitThenFailOptions = z.infer<typeof options>

/** How far past `timeoutMs` the answer comes: enough for a client timing out at `timeoutMs` to give up first. */
export const HOLD_PAST_MS = 100

export default defineScenario({
  name: 'commit-then-fail',
  description:
    'creation, publication, emission, payment, e-mail, messaging and upload operations apply their effect, then answer 500 (or, with timeoutMs, hold the answer timeoutMs + 100 ms and answer 504): the caller must check state before retrying',
  advice:
    'After a 500 or a time-out on a write, do not resend: read the resource (and its external effects) first, show "checking whether it went through", and only offer to retry when the read shows it did not',
  options,
  order: 60,
  appliesTo: (route) => route.effect === true,
  async after(ctx, reply, o) {
    if (!ctx.route.effect || reply.status >= 400) return reply
    ctx.fault('commit-then-fail')
    if (o.timeoutMs !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, o.timeoutMs! + HOLD_PAST_MS))
      throw new HttpError(
        504,
        `gateway: no answer within ${o.timeoutMs} ms; the operation may have been applied, check before retrying`,
      )
    }
    throw new HttpError(
      500,
      'internal error: the server failed while answering; the operation may have been applied, check before retrying',
    )
  },
})
