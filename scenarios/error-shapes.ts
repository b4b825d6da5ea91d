import * as z from 'zod'
import { reasonPhrase } from '../src/core/http/reply.js'
import { defineScenario } from '../src/core/scenarios/define.js'

/** The three body shapes the spec says clients meet (Errors, Error body). */
const shapes = [
  (status: number, message: string) => ({ statusCode: status, message, error: reasonPhrase(status) }),
  (_: number, message: string) => ({ error: message }),
  (_: number, message: string) => ({ message }),
]

export default defineScenario({
  name: 'error-shapes',
  description:
    'error bodies rotate through the three shapes the spec says clients meet: {statusCode, message, error}, then {error}, then {message}, then again',
  advice:
    'Read errors defensively: the status code decides what to do; the text is message, else error (when it is a string), else a generic text for the status; never show raw JSON',
  options: z.strictObject({}),
  // Late: it reshapes errors that other scenarios produced too.
  order: 90,
  appliesTo: (route) => route.auth.kind !== 'control',
  after(ctx, reply) {
    if (!reply.error) return reply
    const turn = (ctx.sandbox.scenarioState.get('error-shapes') as number | undefined) ?? 0
    ctx.sandbox.scenarioState.set('error-shapes', turn + 1)
    ctx.fault('error-shapes')
    return { ...reply, body: shapes[turn % 3](reply.status, reply.error.message) }
  },
})
