import type { ScenarioDefinition } from '../route/context.js'
import type { NoOptions, OptionsOutput, StandardSchemaV1 } from './options.js'

export type { AppliedScenario, ScenarioDefinition } from '../route/context.js'
export type { ActiveScenario, ScenarioFacts } from './types.js'

/** Keeps the name and the options schema in the type: the entries type `scenario` options from them. */
export function defineScenario<const N extends string, S extends StandardSchemaV1 = NoOptions>(
  definition: Omit<ScenarioDefinition<OptionsOutput<S>>, 'name' | 'options'> & { name: N; options?: S },
): Omit<ScenarioDefinition<OptionsOutput<S>>, 'options'> & { name: N; options?: S } {
  return definition
}
