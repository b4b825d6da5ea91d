import { errorReply, type Reply } from '../http/reply.js'
import type { Exchange, Stage } from '../route/exchange.js'

/** The scenarios in force: the sandbox's and those the header names (a control route runs with none). */
export const scenariosInForce: Stage = {
  name: 'scenarios',
  answer(x) {
    if (x.route.auth.kind !== 'control') x.applied = x.app.scenariosFor(x.sandbox, x.request, x.route)
  },
}

type Hook = 'edge' | 'before'

/** Each scenario's `hook` in order, until one answers. */
async function hooks(x: Exchange, hook: Hook): Promise<Reply | undefined> {
  for (const a of x.applied) {
    const early = await a.def[hook]?.(x, a.options)
    if (early) return early
  }
  return undefined
}

// Most requests run with no scenario: nothing awaited for them.

/** Scenarios that answer before auth (gateways: a rate limit, an outage). */
export const edgeScenarios: Stage = {
  name: 'scenarios-edge',
  answer: (x) => (x.applied.length ? hooks(x, 'edge') : undefined),
}

/** Scenarios that answer after auth and the input's checks. */
export const beforeScenarios: Stage = {
  name: 'scenarios-before',
  answer: (x) => (x.applied.length ? hooks(x, 'before') : undefined),
}

/** Scenarios that reshape the answer (not an override's), each in order; one that throws answers its error. */
export const afterScenarios: Stage = {
  name: 'scenarios-after',
  tail: (x) => (x.applied.length ? after(x) : undefined),
}

async function after(x: Exchange): Promise<void> {
  for (const a of x.applied) {
    if (!a.def.after || x.reply?.override) continue
    try {
      x.reply = await a.def.after(x, x.reply, a.options)
    } catch (error) {
      x.reply = errorReply(x.route, error)
    }
  }
}
