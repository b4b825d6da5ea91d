import type { UnhandledRequestStrategy } from 'msw'
import type { z } from 'zod'
import type { BundledScenario } from '../../../scenarios/index.js'
import { bundledScenarios } from '../../sandbox-app.js'
import type { ActiveScenario } from '../../core/scenarios/define.js'
import type { OptionValue } from '../../core/options/options.js'
import type { FixtureRows } from '../../core/store/fixtures.js'
import type { UpstreamOptions } from '../../core/bridge/upstream.js'

/** The name of every scenario in `scenarios/`: a typo is a type error. */
export type ScenarioName = BundledScenario['name']
/** The options a scenario takes, as given (those with defaults may be left out). */
export type ScenarioOptions<N extends ScenarioName> = z.input<Extract<BundledScenario, { name: N }>['options']>
/** One scenario in text form: `'slow'` or `'slow;ms=300'` (the name is checked, the options at run time). */
export type ScenarioText = ScenarioName | `${ScenarioName};${string}`
/** A bound of a scenario's window on the sandbox clock: `'+2m'` (s, m, h or d from now) or an ISO date-time. */
export type ScenarioWindowBound = `+${number}${'s' | 'm' | 'h' | 'd'}` | `${number}-${number}-${number}T${string}`
/** A window: the scenario shapes answers while the sandbox clock is in [from, until) (docs/scenarios.md). */
export interface ScenarioWindow {
  from?: ScenarioWindowBound | null
  until?: ScenarioWindowBound | null
}
/**
 * A scenario by name, or with typed options and an optional window: `'rate-limited'`,
 * `{ name: 'slow', options: { ms: 300 } }`, `{ name: 'degraded', from: '+2m', until: '+7m' }`.
 */
export type ScenarioInput = ScenarioText | { [N in ScenarioName]: { name: N; options?: ScenarioOptions<N> } & ScenarioWindow }[ScenarioName]
/**
 * Several in text form, comma-separated (`'empty,slow;ms=300'`), or `''` for none. Only the first
 * name is checked at compile time: an option value may hold any text, so no type (without a
 * generic call to infer the literal) can tell where an entry ends, and a union of every list
 * would be too large to compile. The rest is checked at run time; the array form
 * (`['empty', 'slow']`) checks every name.
 */
export type ScenarioListText = '' | ScenarioText | `${ScenarioText},${string}`

/**
 * What every MSW-based entry (browser worker, msw/node, Storybook) is started with: the
 * options it shares with the command line take their types from the core's options schema
 * (`src/core/options/options.ts`, where their defaults and help are).
 */
export interface MswSandboxOptions {
  /** Seed of the generated data (default 1). */
  seed?: OptionValue<'seed'>
  /** ISO date-time the sandbox clock starts at (default: the real time). */
  now?: OptionValue<'now'>
  /** Scenarios active at start: `'a,b'` (with `;key=value` options) or a list. */
  scenario?: ScenarioListText | ScenarioInput[]
  /** `small`, `medium` or `large` (default `medium`; `small` in `fleet-sandbox/node`). */
  size?: OptionValue<'size'>
  /** Exact number of notifications of the demo client, instead of `size`. */
  notifications?: OptionValue<'notifications'>
  /** Origins to answer (`https://api.example.com`); default: `/api/...` and `/__sandbox/...` on any origin. */
  origins?: string[]
  /** Serve only what the spec documents. */
  strict?: OptionValue<'strict'>
  /**
   * Collections that replace the seeded ones, keyed by collection name (docs/fixtures.md), in
   * every world: at start, after each reset (any seed) and in each `x-sandbox-id` sandbox.
   */
  fixtures?: FixtureRows
  /**
   * The real backend (docs/bridge.md): an `/api/...` request no route matches goes to this URL
   * (with `routes`, also the routes those patterns name), and its answers are checked against
   * the sandbox's OpenAPI document. In a browser the upstream must allow the page's origin (CORS).
   */
  upstream?: string | UpstreamOptions
  /** What MSW does with requests no route matches. */
  onUnhandledRequest?: UnhandledRequestStrategy
}

/** Checked at run time too: JavaScript callers and casts reach here untyped. */
export function scenarioList(input: string | readonly unknown[] | undefined, field = 'scenario'): ActiveScenario[] {
  if (typeof input === 'string') return bundledScenarios.parseList(input, field)
  return (input ?? []).map((s, i) => bundledScenarios.parse(s, `${field}.${i}`))
}
