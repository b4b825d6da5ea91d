import * as accounts from '../fixtures/accounts.js'
import { scenarios } from '../scenarios/index.js'
import { SandboxApp, type SandboxAppOptions } from './core/app/app.js'
import { ScenarioRegistry } from './core/scenarios/registry.js'

/** What the core needs handed in, filled with the project's own `fixtures/` and `scenarios/`. */
export type AppOptions = Omit<SandboxAppOptions, 'accounts' | 'scenarioDefinitions'> & Partial<Pick<SandboxAppOptions, 'accounts' | 'scenarioDefinitions'>>

/** A SandboxApp with the demo accounts and every scenario of `scenarios/`: what each adapter serves. */
export function createSandboxApp(options: AppOptions): SandboxApp {
  return new SandboxApp({ accounts, scenarioDefinitions: scenarios, ...options })
}

/** The bundled scenarios, for parsing `--scenario` and `?sandbox-scenario=` before an app exists. */
export const bundledScenarios = new ScenarioRegistry(scenarios)
