import type { UnhandledRequestStrategy } from 'msw'
import { bundledScenarios } from '../../sandbox-app.js'
import type { ActiveScenario } from '../../core/scenarios/define.js'
import type { Size } from '../../core/seed/seed.js'
import type { FixtureRows } from '../../core/store/fixtures.js'

/** A scenario by name, or with options: `'rate-limited'`, `{ name: 'slow', options: { ms: 300 } }`. */
export type ScenarioInput = string | { name: string; options?: Record<string, unknown> }

/** What every MSW-based entry (browser worker, msw/node) is started with. */
export interface MswSandboxOptions {
  /** Seed of the generated data (default 1). */
  seed?: number
  /** ISO date-time the sandbox clock starts at (default: the real time). */
  now?: string
  /** Scenarios active at start: `'a,b'` (with `;key=value` options) or a list. */
  scenario?: string | ScenarioInput[]
  /** `small`, `medium` or `large`. */
  size?: Size
  /** Exact number of notifications of the demo client, instead of `size`. */
  notifications?: number
  /** Origins to answer (`https://api.example.com`); default: `/api/...` and `/__sandbox/...` on any origin. */
  origins?: string[]
  /** Serve only what the spec documents. */
  strict?: boolean
  /**
   * Collections that replace the seeded ones, keyed by collection name (docs/fixtures.md), in
   * every world: at start, after each reset (any seed) and in each `x-sandbox-id` sandbox.
   */
  fixtures?: FixtureRows
  /** What MSW does with requests no route matches. */
  onUnhandledRequest?: UnhandledRequestStrategy
}

export function scenarioList(input: string | ScenarioInput[] | undefined, field = 'scenario'): ActiveScenario[] {
  if (typeof input === 'string') return bundledScenarios.parseList(input, field)
  return (input ?? []).map((s, i) => bundledScenarios.parse(s, `${field}.${i}`))
}
