import type { ScenarioDefinition } from '../core/scenarios/define.js'
import { withOwnScenarios } from './check.js'
import { scenarioLimits } from './guard.js'
import { ScenarioRegistry } from '../core/scenarios/registry.js'
import { bundledScenarios } from '../apps/page-app.js'

let definitions: ScenarioDefinition[] | undefined
let known: ScenarioRegistry = bundledScenarios

/**
 * Your scenario files on workerd: `fleet-sandbox --engine workerd --scenarios DIR` bundles each
 * file into a module beside this Worker and an entry module that hands them here before the
 * first request (src/own-scenarios/worker-modules.ts). Checked again here, as every entry checks them.
 */
export function useScenarios(own: readonly unknown[], files?: readonly string[], timeoutMs?: number): void {
  if (timeoutMs !== undefined) scenarioLimits.timeoutMs = timeoutMs
  definitions = withOwnScenarios(bundledScenarios.list(), own, 'scenarios', files)
  known = new ScenarioRegistry(definitions)
}

/** The scenarios `SANDBOX_SCENARIO` is read with: the bundled ones and yours. */
export const knownScenarios = (): ScenarioRegistry => known
/** What the objects' apps are built with; undefined: the bundled ones (the app's default). */
export const ownDefinitions = (): ScenarioDefinition[] | undefined => definitions
