import type { UnhandledRequestStrategy } from 'msw'
import type { EntryOptions } from '../../core/options/options.js'
import type { ScenarioInput, ScenarioListText } from '../../scenario-input.js'

export { type ScenarioInput, type ScenarioListText, type ScenarioName, type ScenarioOptions, type ScenarioText, type ScenarioWindow, type ScenarioWindowBound, scenarioList } from '../../scenario-input.js'

/** What every MSW-based entry (browser worker, msw/node, Storybook) is started with. */
export interface MswSandboxOptions extends EntryOptions {
  /** Scenarios active at start: `'a,b'` (with `;key=value` options) or a list. */
  scenario?: ScenarioListText | ScenarioInput[]
  /** Origins to answer (`https://api.example.com`); default: `/api/...` and `/__sandbox/...` on any origin. */
  origins?: string[]
  /** What MSW does with requests no route matches. */
  onUnhandledRequest?: UnhandledRequestStrategy
}
