import { NOT_KEPT, isCredential, scrubText } from '../sandbox/credentials.js'

/** JSON as a contract holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

export interface Matcher {
  match: 'type' | 'regex' | 'null'
  regex?: string
  min?: number
}

/** Pact 4 matching rules of one category, by JSON path (`$.data.items[*].id`). */
export type Rules = Record<string, { combine: 'AND' | 'OR'; matchers: Matcher[] }>

export const DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$'
export const DATE = '^\\d{4}-\\d{2}-\\d{2}$'
/** The sandbox's ids are a short prefix and a tail (`ntf_0042`, `lyr_3`): another backend's ids keep the prefix. */
const PREFIXED_ID = /^([a-z][a-z0-9]{0,11}_)[A-Za-z0-9_-]+$/

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v)
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const member = (path: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}['${key.replace(/'/g, "\\'")}']`

/** An id's pattern: its kind (hex, UUID, digits, a prefix), not its value: another backend's ids differ. */
function idRule(value: string): Matcher {
  const prefixed = PREFIXED_ID.exec(value)
  if (/^[0-9a-f]+$/.test(value)) return { match: 'regex', regex: `^[0-9a-f]{${value.length}}$` }
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value))
    return { match: 'regex', regex: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }
  if (/^\d+$/.test(value)) return { match: 'regex', regex: '^\\d+$' }
  if (prefixed) return { match: 'regex', regex: `^${escape(prefixed[1])}[A-Za-z0-9_-]+$` }
  return { match: 'type' }
}

export { isCredential }

/**
 * A body as a contract expects it: the example (credentials replaced, each list cut to its first
 * item) and the rules under which another backend's data still matches: the type of every value,
 * a pattern for ids and dates, at least one item where the app saw a list with items.
 */
export function shape(body: Json): { example: Json; rules: Rules } {
  const rules: Rules = {}
  // Paths some item of a list holds null at (an invoice without its DTE yet): null matches there too.
  const nulls = new Set<string>()
  // Paths some item of a list holds an empty list at: no item is expected there.
  const empties = new Set<string>()
  const put = (path: string, matcher: Matcher) =>
    void (rules[path] = nulls.has(path)
      ? { combine: 'OR', matchers: [matcher, { match: 'null' }] }
      : { combine: 'AND', matchers: [matcher] })
  const walk = (value: Json, path: string, key: string): Json => {
    if (Array.isArray(value)) {
      // An empty list expects any list; one with items expects items like the fullest.
      put(path, value.length && !empties.has(path) ? { match: 'type', min: 1 } : { match: 'type' })
      if (!value.length) return []
      for (const item of value) nullsOf(item, `${path}[*]`, nulls, empties)
      const fullest = value.reduce((best, item) => (filled(item) > filled(best) ? item : best), value[0])
      // Where the fullest holds null and another item a value (a draft's number beside a published
      // one's), the example takes the value: a null example would match nothing else.
      return [walk(withValues(fullest, value), `${path}[*]`, key)]
    }
    if (isObject(value)) {
      const out: Record<string, Json> = {}
      for (const [k, v] of Object.entries(value)) {
        // An object or list some items hold as null: no rule matches either (the verifier's OR does not reach
        // inside one), so the field is left out: an answer's extra fields are allowed.
        if (v !== null && typeof v === 'object' && nulls.has(member(path, k))) continue
        out[k] = walk(v, member(path, k), k)
      }
      return out
    }
    if (value === null) return null
    if (isCredential(key, value) || value === NOT_KEPT) {
      put(path, { match: 'type' })
      return typeof value === 'number' ? 0 : NOT_KEPT
    }
    if (typeof value === 'string') {
      // A token inside text (a message quoting one) is not kept either; the text's type is what matches.
      const kept = scrubText(value)
      if (kept !== value) {
        put(path, { match: 'type' })
        return kept
      }
      if (new RegExp(DATE_TIME).test(value)) put(path, { match: 'regex', regex: DATE_TIME })
      else if (new RegExp(DATE).test(value)) put(path, { match: 'regex', regex: DATE })
      else if (/^(id|_id)$|Ids?$/.test(key)) put(path, idRule(value))
      else put(path, { match: 'type' })
      return value
    }
    put(path, { match: 'type' })
    return value
  }
  const example = walk(body, '$', '')
  return { example, rules }
}

/** The paths (as rules name them) where a list item holds null. */
function nullsOf(value: Json, path: string, out: Set<string>, empty: Set<string>): void {
  if (value === null) out.add(path)
  else if (Array.isArray(value)) {
    if (!value.length) empty.add(path)
    for (const item of value) nullsOf(item, `${path}[*]`, out, empty)
  } else if (isObject(value)) for (const [k, v] of Object.entries(value)) nullsOf(v, member(path, k), out, empty)
}

/** `item` with each null it holds taken from the first of `items` that holds a value there. */
function withValues(item: Json, items: readonly Json[]): Json {
  if (item === null) return items.find((other) => other !== null) ?? null
  if (!isObject(item)) return item
  const others = items.filter(isObject)
  const out: Record<string, Json> = {}
  // Its own keys only: a key some items leave out is not expected of every item.
  for (const [key, value] of Object.entries(item))
    out[key] = withValues(
      value,
      others.map((o) => o[key] ?? null),
    )
  return out
}

/** How many values of a JSON are not null: the fullest item of a list is its example. */
function filled(value: Json): number {
  if (value === null) return 0
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + filled(v), 0)
  if (isObject(value)) return Object.values(value).reduce((n: number, v) => n + filled(v), 1)
  return 1
}

/** A request body with its credentials replaced (the paths replaced, for the generators that fill them). */
export function withoutCredentials(body: Json): { body: Json; replaced: string[] } {
  const replaced: string[] = []
  const walk = (value: Json, path: string, key: string): Json => {
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${path}[${i}]`, key))
    if (isObject(value))
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, member(path, k), k)]))
    if (value !== null && (isCredential(key, value) || value === NOT_KEPT)) {
      replaced.push(path)
      return NOT_KEPT
    }
    return typeof value === 'string' ? scrubText(value) : value
  }
  return { body: walk(body, '$', ''), replaced }
}
