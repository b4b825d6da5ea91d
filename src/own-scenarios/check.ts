import type { ScenarioDefinition } from '../core/scenarios/define.js'
import { guardScenario } from './guard.js'
import { isStandardSchema, readOptions } from '../core/scenarios/options.js'

const NAME = /^[a-z][a-z0-9-]{0,63}$/
const HOOKS = ['activate', 'edge', 'before', 'after', 'hides', 'appliesTo'] as const
/** Scenarios of your own one app may hold (files of `--scenarios DIR`, or an entry's `scenarios`). */
export const OWN_SCENARIOS_MAX = 100

/**
 * A scenario of your own is untrusted input: each field checked, a wrong one named with `where`
 * (`--scenarios: file.ts` or `scenarios.0`), so a typo stops the start instead of a request.
 */
export function checkScenario(value: unknown, where: string): ScenarioDefinition {
  try {
    return check(value, where)
  } catch (error) {
    if (error instanceof Refused) throw error
    // A getter or a schema of the file's own that throws: said as a refusal, never as its error alone.
    throw new Refused(`${where}: default export: could not be read (${textOf(error)})`)
  }
}

/** A refusal of ours, which names the field and the rule. */
class Refused extends Error {}

function textOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'an unprintable value was thrown'
  }
}

function check(value: unknown, where: string): ScenarioDefinition {
  const at = (field: string, rule: string) => new Refused(`${where}: ${field}: ${rule}`)
  if (value === null || typeof value !== 'object')
    throw at('default export', 'must be a scenario: defineScenario({ name, description, advice, options, ...hooks })')
  const s = value as Record<string, unknown>
  if (typeof s.name !== 'string' || !NAME.test(s.name))
    throw at('name', 'must be 1 to 64 lower-case letters, digits or "-", starting with a letter')
  for (const field of ['description', 'advice'] as const) {
    if (typeof s[field] !== 'string' || s[field] === '' || (s[field] as string).length > 2000)
      throw at(field, 'must be a text of 1 to 2,000 characters')
  }
  if (
    s.order !== undefined &&
    (typeof s.order !== 'number' || !Number.isInteger(s.order) || s.order < 0 || s.order > 100)
  )
    throw at('order', 'must be a whole number from 0 to 100')
  for (const hook of HOOKS)
    if (s[hook] !== undefined && typeof s[hook] !== 'function') throw at(hook, 'must be a function')
  if (s.taxAuthority !== undefined && (s.taxAuthority === null || typeof s.taxAuthority !== 'object'))
    throw at('taxAuthority', 'must be an object of hooks')
  if (s.options === undefined) return value as ScenarioDefinition
  if (!isStandardSchema(s.options))
    throw at(
      'options',
      `must be a Standard Schema (zod 3.24 or later, zod 4, valibot, arktype, ...), or left out for none`,
    )
  let defaults: ReturnType<typeof readOptions>
  try {
    defaults = readOptions(s.options, {})
  } catch (error) {
    throw at('options', `must read {} without throwing (it threw: ${textOf(error)})`)
  }
  if ('issue' in defaults)
    throw at(
      'options',
      `must accept {} (give every option a default): ${defaults.issue.path ? defaults.issue.path + ': ' : ''}${defaults.issue.message || 'unknown option ' + defaults.issue.unknown?.join(', ')}`,
    )
  return value as ScenarioDefinition
}

/**
 * The bundled scenarios and an entry's own (`scenarios` of `fleet-sandbox/node`, `/browser`,
 * `/storybook`), each own one checked; a name taken by a bundled scenario or an earlier entry is
 * refused naming both, as `--scenarios DIR` refuses a clashing file.
 */
export function withOwnScenarios(
  bundled: readonly ScenarioDefinition[],
  own: unknown,
  field = 'scenarios',
  files?: readonly string[],
): ScenarioDefinition[] {
  if (own === undefined) return [...bundled]
  if (!Array.isArray(own)) throw new Error(`${field}: must be a list of scenarios (defineScenario({...}) each)`)
  if (own.length > OWN_SCENARIOS_MAX)
    throw new Error(`${field}: at most ${OWN_SCENARIOS_MAX} scenarios of your own; got ${own.length}`)
  const taken = new Map(bundled.map((d) => [d.name, 'a bundled scenario']))
  const out = [...bundled]
  own.forEach((value, i) => {
    const def = checkScenario(value, `${field}.${i}`)
    const clash = taken.get(def.name)
    if (clash) throw new Error(`${field}.${i}: name "${def.name}" is taken by ${clash}; rename it`)
    taken.set(def.name, `${field}.${i}`)
    // Each hook bounded and its failures named: by its file where there is one (workerd's), else its place.
    out.push(guardScenario(def, files?.[i] ?? `${field}.${i}`))
  })
  return out
}
