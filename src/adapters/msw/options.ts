import type { UnhandledRequestStrategy } from 'msw'
import type { EntryOptions } from '../../core/options/options.js'
import type { KnownScenario, NamedScenario, ScenarioInput, ScenarioListText } from '../../own-scenarios/input.js'

export {
  type KnownScenario,
  type NamedScenario,
  type ScenarioInput,
  type ScenarioListText,
  type ScenarioName,
  type ScenarioOptions,
  type ScenarioText,
  type ScenarioWindow,
  type ScenarioWindowBound,
  scenarioList,
} from '../../own-scenarios/input.js'

/** What every MSW-based entry (browser worker, msw/node, Storybook) is started with. */
export interface MswSandboxOptions<S extends readonly NamedScenario[] = readonly []> extends EntryOptions {
  /**
   * Scenarios of your own (`defineScenario({...})` each), beside the bundled ones: in the
   * catalog and every way of switching scenarios, typed in `scenario` and `use()`. A name a
   * bundled scenario has is refused at start (docs/your-own-answers.md).
   */
  scenarios?: S
  /** Scenarios active at start: `'a,b'` (with `;key=value` options) or a list. */
  scenario?: ScenarioListText<KnownScenario<S>> | ScenarioInput<KnownScenario<S>>[]
  /** Origins to answer (`https://api.example.com`); default: `/api/...` and `/__sandbox/...` on any origin. */
  origins?: string[]
  /** What MSW does with requests no route matches. */
  onUnhandledRequest?: UnhandledRequestStrategy
}
