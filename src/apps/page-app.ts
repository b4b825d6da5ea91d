import * as accounts from '../../fixtures/accounts.js'
import { scenarios } from '../../scenarios/index.js'
// The route table before the app: the order the browser entry's bundle compresses best in (its gzip budget, test/browser/sandbox.test.ts).
import { routes } from './route-table.js'
import { SandboxApp, type SandboxAppOptions } from '../core/app/app.js'
import { PageWriter } from '../core/notifications/page.js'
import { ScenarioRegistry } from '../core/scenarios/registry.js'
import { stages } from './stages.js'

/** What the core needs handed in: the project's own `fixtures/`, `scenarios/`, route table and stages, and the notifications' tuned page writer. */
export type AppOptions = Omit<SandboxAppOptions, Handed> & Partial<Pick<SandboxAppOptions, Handed>>
type Handed = 'accounts' | 'scenarioDefinitions' | 'routes' | 'stages' | 'pages'

/** A SandboxApp with the demo accounts, every scenario of `scenarios/`, every route and the stages: what each adapter serves. */
export function createSandboxApp(options: AppOptions): SandboxApp {
  return new SandboxApp({
    accounts,
    scenarioDefinitions: scenarios,
    routes,
    stages,
    pages: new PageWriter(),
    ...options,
  })
}

/** The bundled scenarios, for parsing `--scenario` and `?sandbox-scenario=` before an app exists. */
export const bundledScenarios = new ScenarioRegistry(scenarios)
