import { errorReply, type Reply } from '../http/reply.js'
import type { Exchange, Stage } from '../app/exchange.js'
import type { AppliedScenario } from './define.js'

/** The scenarios in force: the sandbox's and those the header names (a control route runs with none). */
export const scenariosInForce: Stage = {
  name: 'scenarios',
  answer(x) {
    if (x.route.auth.kind !== 'control') x.applied = x.app.scenariosFor(x.sandbox, x.request, x.route)
  },
}

type Hook = 'edge' | 'before'

/** Each scenario's `hook` in order, until one answers; most requests run with none. */
function hooks(x: Exchange, hook: Hook): Promise<Reply | undefined> | undefined {
  const applied = x.applied
  for (let i = 0; i < applied.length; i++) if (applied[i]!.def[hook]) return run(x, hook, i)
  return undefined
}

async function run(x: Exchange, hook: Hook, from: number): Promise<Reply | undefined> {
  for (let i = from; i < x.applied.length; i++) {
    const a: AppliedScenario = x.applied[i]!
    const early = await a.def[hook]?.(x, a.options)
    if (early) return early
  }
  return undefined
}

/** Scenarios that answer before auth (gateways: a rate limit, an outage). */
export const edgeScenarios: Stage = { name: 'scenarios-edge', answer: (x) => hooks(x, 'edge') }

/** Scenarios that answer after auth and the input's checks. */
export const beforeScenarios: Stage = { name: 'scenarios-before', answer: (x) => hooks(x, 'before') }

/** Scenarios that reshape the answer (not an override's), each in order; one that throws answers its error. */
export const afterScenarios: Stage = {
  name: 'scenarios-after',
  tail(x) {
    for (let i = 0; i < x.applied.length; i++) if (x.applied[i]!.def.after) return after(x, i)
  },
}

async function after(x: Exchange, from: number): Promise<void> {
  for (let i = from; i < x.applied.length; i++) {
    const a = x.applied[i]!
    if (!a.def.after || x.reply?.override) continue
    try {
      x.reply = await a.def.after(x, x.reply, a.options)
    } catch (error) {
      x.reply = errorReply(x.route, error)
    }
  }
}
