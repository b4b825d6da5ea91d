import type { TaxAuthorityHooks } from '../billing/authority.js'
import type { Reply } from '../http/reply.js'
import type { RouteContext } from '../app/route.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { NoOptions, OptionsOutput, StandardSchemaV1 } from './options.js'

/**
 * A scenario: one file in `scenarios/`. It may change state when it turns on (`activate`),
 * answer before the handler (`edge`: before auth, for gateways such as rate limits; `before`:
 * after auth and validation), or reshape the answer (`after`). The core offers two more hooks:
 * `hides` shapes data (which collections the caller sees), `taxAuthority` the DTE upload and
 * sync answers. The core never asks for a scenario by name.
 */
export interface ScenarioDefinition<O = any> {
  name: string
  description: string
  /** What the UI should do about it: the README's scenarios table. */
  advice: string
  /** Any Standard Schema (zod 3.24+ or 4, valibot, arktype) that accepts `{}`; none: it takes no options. */
  options?: StandardSchemaV1<any, O>
  /** Lower runs first when several are active (default 50). */
  order?: number
  activate?(sandbox: Sandbox, options: O): void
  edge?(ctx: RouteContext, options: O): Reply | undefined | Promise<Reply | undefined>
  before?(ctx: RouteContext, options: O): Reply | undefined | Promise<Reply | undefined>
  after?(ctx: RouteContext, reply: Reply, options: O): Reply | Promise<Reply>
  /**
   * Data shaping: true hides the caller's records of `collection` (a list answers empty, a count
   * zero), marking the answer with this scenario's name. Routes ask through `ctx.visible`.
   */
  hides?(collection: string, options: O): boolean
  /** How the simulated tax authority answers uploads and syncs of DTEs (src/core/billing/authority.ts). */
  taxAuthority?: TaxAuthorityHooks<O>
}

/** A scenario in force for one request, with its options. */
export interface AppliedScenario {
  def: ScenarioDefinition
  options: Record<string, unknown>
}

/** Keeps the name and the options schema in the type: the entries type `scenario` options from them. */
export function defineScenario<const N extends string, S extends StandardSchemaV1 = NoOptions>(
  definition: Omit<ScenarioDefinition<OptionsOutput<S>>, 'name' | 'options'> & { name: N; options?: S },
): Omit<ScenarioDefinition<OptionsOutput<S>>, 'options'> & { name: N; options?: S } {
  return definition
}

export interface ActiveScenario {
  name: string
  options: Record<string, unknown>
  /** Start of its window on the sandbox clock (ISO; `+N` with s, m, h or d until the sandbox fixes it); absent or null: always. */
  from?: string | null
  /** End of its window, excluded; absent or null: never ends. */
  until?: string | null
}
