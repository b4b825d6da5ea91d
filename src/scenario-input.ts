import type { z } from 'zod'
import type { BundledScenario } from '../scenarios/index.js'
import { bundledScenarios } from './sandbox-app.js'
import type { ActiveScenario } from './core/scenarios/define.js'

// How the entries (`fleet-sandbox/node`, `/browser`, `/storybook`, `/playwright`) name the
// bundled scenarios, typed from the files of `scenarios/`.

/** The name of every scenario in `scenarios/`: a typo is a type error. */
export type ScenarioName = BundledScenario['name']
/** The options a scenario takes, as given (those with defaults may be left out). */
export type ScenarioOptions<N extends ScenarioName> = z.input<Extract<BundledScenario, { name: N }>['options']> & ScenarioScope
/** Every scenario takes `routes`: it then acts on those routes only (operation ids or `METHOD /path`, `*` one segment). */
export interface ScenarioScope {
  routes?: readonly string[] | string
}
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

/** Checked at run time too: JavaScript callers and casts reach here untyped. */
export function scenarioList(input: string | readonly unknown[] | undefined, field = 'scenario'): ActiveScenario[] {
  if (typeof input === 'string') return bundledScenarios.parseList(input, field)
  return (input ?? []).map((s, i) => bundledScenarios.parse(s, `${field}.${i}`))
}
