import type { z } from 'zod'
import type { Reply } from '../http/reply.js'
import type { RouteContext } from '../app/route.js'
import type { Sandbox } from '../sandbox/sandbox.js'

/**
 * A scenario: one file in `scenarios/`. It may change state when it turns on (`activate`),
 * answer before the handler (`edge`: before auth, for gateways such as rate limits; `before`:
 * after auth and validation), or reshape the answer (`after`). Domain rules that a scenario
 * changes read its options through `ctx.scenario(name)`.
 */
export interface ScenarioDefinition<O = any> {
  name: string
  description: string
  /** What the UI should do about it: the README's scenarios table. */
  advice: string
  options: z.ZodType<O>
  /** Lower runs first when several are active (default 50). */
  order?: number
  activate?(sandbox: Sandbox, options: O): void
  edge?(ctx: RouteContext, options: O): Reply | undefined | Promise<Reply | undefined>
  before?(ctx: RouteContext, options: O): Reply | undefined | Promise<Reply | undefined>
  after?(ctx: RouteContext, reply: Reply, options: O): Reply | Promise<Reply>
}

export function defineScenario<O>(definition: ScenarioDefinition<O>): ScenarioDefinition<O> {
  return definition
}

export interface ActiveScenario {
  name: string
  options: Record<string, unknown>
}
