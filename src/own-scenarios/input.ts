import type { BundledScenario } from '../../scenarios/index.js'
import { bundledScenarios } from '../apps/page-app.js'
import type { ActiveScenario } from '../core/scenarios/define.js'
import type { ScenarioRegistry } from '../core/scenarios/registry.js'
import type { OptionsInput, StandardSchemaV1 } from '../core/scenarios/options.js'
import type { OperationId } from '../../generated/api/operation-ids.js'

// How the entries (`fleet-sandbox/node`, `/browser`, `/storybook`, `/playwright`) name the
// bundled scenarios, typed from the files of `scenarios/`.

/** A scenario's type as the entries read it: its name and its options schema (defineScenario keeps both). */
export interface NamedScenario {
  name: string
  options?: StandardSchemaV1
}
/** The name of every scenario in `scenarios/` (and of your own, `D`): a typo is a type error. */
export type ScenarioName<D extends NamedScenario = BundledScenario> = D['name']
/** The options a scenario takes, as given (those with defaults may be left out). */
export type ScenarioOptions<N extends string, D extends NamedScenario = BundledScenario> = OptionsInput<
  NonNullable<Extract<D, { name: N }>['options']>
> &
  ScenarioScope
/** Every scenario takes `routes`: it then acts on those routes only (operation ids or `METHOD /path`, `*` one segment). */
export interface ScenarioScope {
  routes?: readonly ScopedRoute[] | ScopedRoute | `${ScopedRoute}|${string}`
}
/** One entry of `routes`: an operation id (a typo is a type error) or a `METHOD /path` pattern. */
export type ScopedRoute = OperationId | `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | '*'} /${string}`
/** One scenario in text form: `'slow'` or `'slow;ms=300'` (the name is checked, the options at run time). */
export type ScenarioText<D extends NamedScenario = BundledScenario> = D['name'] | `${D['name']};${string}`
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
 * `D` adds your own scenarios (an entry's `scenarios` option) to the bundled ones.
 */
export type ScenarioInput<D extends NamedScenario = BundledScenario> =
  ScenarioText<D> | { [N in D['name']]: { name: N; options?: ScenarioOptions<N, D> } & ScenarioWindow }[D['name']]
/**
 * Several in text form, comma-separated (`'empty,slow;ms=300'`), or `''` for none. Only the first
 * name is checked at compile time: an option value may hold any text, so no type (without a
 * generic call to infer the literal) can tell where an entry ends, and a union of every list
 * would be too large to compile. The rest is checked at run time; the array form
 * (`['empty', 'slow']`) checks every name.
 */
export type ScenarioListText<D extends NamedScenario = BundledScenario> =
  '' | ScenarioText<D> | `${ScenarioText<D>},${string}`
/** The bundled scenarios and those of an entry's `scenarios` option (`S`), as one union. */
export type KnownScenario<S extends readonly NamedScenario[]> = BundledScenario | S[number]

/** The scenario options of the entries that take your own (`fleet-sandbox/node`, `/browser`, `/storybook`). */
export interface ScenarioEntryOptions<S extends readonly NamedScenario[] = readonly []> {
  /**
   * Scenarios of your own (`defineScenario({...})` each), beside the bundled ones: in the
   * catalog and every way of switching scenarios, typed in `scenario` and `use()`. A name a
   * bundled scenario has is refused at start (docs/your-own-answers.md).
   */
  scenarios?: S
  /** Scenarios active at start: `'a,b'` (with `;key=value` options) or a list. */
  scenario?: ScenarioListText<KnownScenario<S>> | ScenarioInput<KnownScenario<S>>[]
}

/** Checked at run time too: JavaScript callers and casts reach here untyped. */
export function scenarioList(
  input: string | readonly unknown[] | undefined,
  field = 'scenario',
  known: ScenarioRegistry = bundledScenarios,
): ActiveScenario[] {
  if (typeof input === 'string') return known.parseList(input, field)
  return (input ?? []).map((s, i) => known.parse(s, `${field}.${i}`))
}
