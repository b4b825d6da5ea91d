import type { StandardSchemaV1 } from './options.js'

/** What a scenario is, hooks apart (its hooks are in ScenarioDefinition, src/core/route/context.ts). */
export interface ScenarioFacts<O = any> {
  name: string
  description: string
  /** What the UI should do about it: the README's scenarios table. */
  advice: string
  /** Any Standard Schema (zod 3.24+ or 4, valibot, arktype) that accepts `{}`; none: it takes no options. */
  options?: StandardSchemaV1<any, O>
  /** Lower runs first when several are active (default 50). */
  order?: number
}

/** An entry of a sandbox's scenario schedule: a name, its options and its window. */
export interface ActiveScenario {
  name: string
  options: Record<string, unknown>
  /** Start of its window on the sandbox clock (ISO; `+N` with s, m, h or d until the sandbox fixes it); absent or null: always. */
  from?: string | null
  /** End of its window, excluded; absent or null: never ends. */
  until?: string | null
}
