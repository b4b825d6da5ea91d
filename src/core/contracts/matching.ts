import { NOT_KEPT, isCredential, scrubText } from '../sandbox/credentials.js'

/** JSON as a contract holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

export interface Matcher {
  match: 'type' | 'regex'
  regex?: string
  min?: number
}

/** Pact 4 matching rules of one category, by JSON path (`$.data.items[*].id`). */
export type Rules = Record<string, { combine: 'AND'; matchers: Matcher[] }>

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
  const put = (path: string, matcher: Matcher) => void (rules[path] = { combine: 'AND', matchers: [matcher] })
  const walk = (value: Json, path: string, key: string): Json => {
    if (Array.isArray(value)) {
      // An empty list expects any list; one with items expects items like the first.
      put(path, value.length ? { match: 'type', min: 1 } : { match: 'type' })
      return value.length ? [walk(value[0], `${path}[*]`, key)] : []
    }
    if (isObject(value)) {
      const out: Record<string, Json> = {}
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, member(path, k), k)
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
