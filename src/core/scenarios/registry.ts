import { badRequest } from '../http/reply.js'
import type { ScenarioDefinition } from '../route/context.js'
import type { ActiveScenario } from './types.js'
import { parseBound } from './window.js'
import { readOptions } from './options.js'
import { ROUTES_OPTION, type ScopedRoute, parseRoutes } from './routes-option.js'

/** The keys of a scenario entry in its object form. */
const ENTRY_KEYS = new Set(['name', 'options', 'from', 'until'])

/**
 * The scenarios an app knows, handed to it by whoever builds it (the adapters pass the files of
 * `scenarios/`): the core never imports a scenario.
 */
export class ScenarioRegistry {
  readonly #byName: Map<string, ScenarioDefinition>
  /** The served routes, once an app is built on this registry: `routes` entries are checked against them. */
  #served: readonly ScopedRoute[] | undefined
  /** Bumped when a definition is replaced: what was worked out from the old one is stale. */
  version = 0

  constructor(definitions: readonly ScenarioDefinition[] = []) {
    this.#byName = new Map(definitions.map((d) => [d.name, d]))
  }

  /** The app's served routes: from now on an unknown operation id in `routes` is a 400. */
  serve(routes: readonly ScopedRoute[]): void {
    this.#served = routes
  }

  /** A scenario file changed (`--watch`): its new version from now on; active ones stay active. */
  replace(definition: ScenarioDefinition): void {
    this.#byName.set(definition.name, definition)
    this.version++
  }

  get(name: string): ScenarioDefinition | undefined {
    return this.#byName.get(name)
  }

  list(): ScenarioDefinition[] {
    return [...this.#byName.values()]
  }

  /**
   * One scenario: a name, `{name, options}`, or (headers, URLs, `--scenario`) the text
   * `name;key=value;key=value`, values read as JSON when they parse (`retryAfter=null`,
   * `ms=300`) and as text otherwise. Anything wrong is a 400 naming `field`.
   */
  parse(input: unknown, field = 'active'): ActiveScenario {
    let name: unknown
    let raw: unknown = {}
    let when: Pick<ActiveScenario, 'from' | 'until'> = {}
    if (typeof input === 'string') {
      const [head, ...pairs] = input.split(';').map((p) => p.trim())
      name = head
      raw = Object.fromEntries(pairs.filter(Boolean).map((pair) => optionPair(pair, head, field)))
    } else if (input && typeof input === 'object' && !Array.isArray(input)) {
      // A misspelt key (`to` for `until`) would otherwise leave the scenario on for good.
      const unknown = Object.keys(input).find((key) => !ENTRY_KEYS.has(key))
      if (unknown !== undefined)
        throw badRequest(`${field}: unknown key "${unknown}"; an entry takes ${[...ENTRY_KEYS].join(', ')}`)
      name = (input as { name?: unknown }).name
      raw = (input as { options?: unknown }).options ?? {}
      const { from, until } = input as { from?: unknown; until?: unknown }
      // A window, when given (docs/scenarios.md "On a timeline"); fixed on the clock by the sandbox.
      if (from != null || until != null)
        when = { from: parseBound(from, `${field}.from`), until: parseBound(until, `${field}.until`) }
    }
    if (typeof name !== 'string' || name === '')
      throw badRequest(`${field}: each entry must be a scenario name or {name, options}`)
    const def = this.#byName.get(name)
    // In an entry's object form the name is its own field.
    const at = typeof input === 'string' ? field : `${field}.name`
    if (!def) throw badRequest(`${at}: unknown scenario "${name}"; known: ${[...this.#byName.keys()].join(', ')}`)
    // Every scenario takes `routes` (routes-option.ts): taken out before its own options are read.
    let routes: string[] | undefined
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && Object.hasOwn(raw, ROUTES_OPTION)) {
      const { [ROUTES_OPTION]: given, ...rest } = raw as Record<string, unknown>
      routes = parseRoutes(given, `${field}: ${name}.options.routes`, this.#served)
      raw = rest
    }
    const read = readOptions(def.options, raw)
    if ('issue' in read) {
      const { path, message, unknown } = read.issue
      const rule = unknown
        ? `unknown option ${unknown.join(', ')}; ${name} takes ${[optionNames(def), ROUTES_OPTION].filter(Boolean).join(', ')}`
        : message
      throw badRequest(`${field}: ${name}.options${path ? '.' + path : ''}: ${rule}`)
    }
    const options = read.value
    return { name, options: routes ? { ...options, [ROUTES_OPTION]: routes } : options, ...when }
  }

  /** `a,b;key=value`: the form of `x-sandbox-scenario`, `?sandbox-scenario=` and `--scenario`. */
  parseList(text: string, field: string): ActiveScenario[] {
    const list = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => this.parse(s, field))
    // The last mention of a name wins.
    return list.filter((a, i) => !list.slice(i + 1).some((b) => b.name === a.name))
  }
}

/** The options a scenario names, read from a zod object schema through wrappers (default, optional, pipe); other libraries': none named. */
function optionNames(def: ScenarioDefinition): string {
  let schema = (def.options ?? {}) as { shape?: object; def?: { innerType?: unknown; in?: unknown } }
  for (let i = 0; i < 8 && !schema.shape && schema.def; i++)
    schema = (schema.def.innerType ?? schema.def.in ?? {}) as typeof schema
  return Object.keys(schema.shape ?? {}).join(', ')
}

function optionPair(pair: string, name: string, field: string): [string, unknown] {
  const at = pair.indexOf('=')
  if (at < 1) throw badRequest(`${field}: "${pair}" in ${name} must be key=value, as in ${name};key=value`)
  const text = pair.slice(at + 1).trim()
  let value: unknown = text
  try {
    value = JSON.parse(text)
  } catch {
    // Plain text, such as outcome=accepted.
  }
  return [pair.slice(0, at).trim(), value]
}
