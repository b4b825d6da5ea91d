import * as z from 'zod'
import { queryObject, validate } from './validate.js'

/** Values kept per parameter, and the longest value kept: bounds whatever callers send. */
const VALUES_PER_FIELD = 512
const VALUE_LIMIT = 256
const ABSENT = '\u0000absent'

/**
 * Validates one route's query string. A frontend sends many distinct queries, but each
 * parameter's values recur (a handful of type sets, pages 1–40, the dates of a picker), so
 * each field's validated value is kept per raw value: a query never seen before is put
 * together from fields seen before. Validation was a tenth of a list request under the varied
 * load, where a cache of whole queries missed four times in five (BENCHMARKS.md).
 *
 * Field by field is what zod itself does for a plain object (unknown keys stripped, no object
 * refinements); any other schema, or any field that fails, goes through `validate` whole, so
 * a 400 names every field at fault exactly as before.
 */
export class QueryValidator<T> {
  readonly #fields: [string, z.ZodType][] | undefined
  readonly #kept = new Map<string, Map<string, unknown>>()

  constructor(readonly schema: z.ZodType<T>) {
    this.#fields = fieldwise(schema) ? Object.entries((schema as z.ZodObject).shape) : undefined
  }

  validate(search: string): T {
    const input = queryObject(new URLSearchParams(search))
    if (!this.#fields) return deepFreeze(validate(this.schema, input, 'query'))
    const out: Record<string, unknown> = {}
    for (const [name, schema] of this.#fields) {
      const raw = input[name]
      const key = raw === undefined ? ABSENT : typeof raw === 'string' ? `s${raw}` : `a${raw.join('\u0000')}`
      let kept = this.#kept.get(name)
      if (!kept) this.#kept.set(name, (kept = new Map()))
      let value = kept.get(key)
      if (value === undefined && !kept.has(key)) {
        const result = schema.safeParse(raw)
        // A field at fault: the whole query again, for the answer zod gives (every field named).
        if (!result.success) return validate(this.schema, input, 'query')
        value = deepFreeze(result.data)
        if (key.length <= VALUE_LIMIT) {
          if (kept.size >= VALUES_PER_FIELD) kept.delete(kept.keys().next().value!)
          kept.set(key, value)
        }
      }
      if (value !== undefined) out[name] = value
    }
    return Object.freeze(out) as T
  }

  /** How many values of a field are kept (the bound is tested). */
  keptValues(name: string): number {
    return this.#kept.get(name)?.size ?? 0
  }
}

/** A plain object schema: zod validates it field by field, with nothing across fields. */
function fieldwise(schema: z.ZodType): boolean {
  if (!(schema instanceof z.ZodObject)) return false
  const def = schema._zod.def
  return def.catchall === undefined && !(def.checks?.length)
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
