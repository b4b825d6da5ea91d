import type { ScenarioDefinition } from '../core/scenarios/define.js'
import { withOwnScenarios } from './check.js'
import { ScenarioRegistry } from '../core/scenarios/registry.js'
import { bundledScenarios } from '../apps/page-app.js'

/**
 * The scenarios an entry knows: the bundled ones, plus its `scenarios` option checked as
 * untrusted input (a wrong field or a bundled name throws, naming `scenarios.<i>.<field>`).
 * `definitions` is undefined when there are none of your own: the app's default then.
 */
export function entryScenarios(own: unknown): { definitions?: ScenarioDefinition[]; known: ScenarioRegistry } {
  if (own === undefined) return { known: bundledScenarios }
  const definitions = withOwnScenarios(bundledScenarios.list(), own, 'scenarios')
  return { definitions, known: new ScenarioRegistry(definitions) }
}
