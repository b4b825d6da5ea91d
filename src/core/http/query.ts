import * as z from 'zod'
import { queryObject, validate } from './validate.js'

/** Values kept per parameter, and the longest value kept: bounds whatever callers send. */
const VALUES_PER_FIELD = 512
const VALUE_LIMIT = 256

/**
 * Validates one route's query string. A frontend sends many distinct queries, but each
 * parameter's values recur (a handful of type sets, pages 1–40, the dates of a picker), so
 * each field's validated value is kept per raw value: a query never seen before is put
 * together from fields seen before. Validation was a large share of a list request under the
 * varied load, where a cache of whole queries mostly missed (`node bench/profile.mjs`).
 *
 * Field by field is what zod itself does for a plain object (unknown keys stripped, no object
 * refinements); any other schema, or any field that fails, goes through `validate` whole, so
 * a 400 names every field at fault exactly as before.
 */
export class QueryValidator<T> {
  readonly #fields: Field[] | undefined

  constructor(readonly schema: z.ZodType<T>) {
    this.#fields = fieldwise(schema)
      ? Object.entries((schema as z.ZodObject).shape).map(([name, schema]) => new Field(name, schema))
      : undefined
  }

  validate(search: string): T {
    const input = queryObject(new URLSearchParams(search))
    if (!this.#fields) return deepFreeze(validate(this.schema, input, 'query'))
    const out: Record<string, unknown> = {}
    for (const field of this.#fields) {
      const value = field.value(input[field.name])
      // A field at fault: the whole query again, for the answer zod gives (every field named).
      if (value === FAULT) return validate(this.schema, input, 'query')
      if (value !== undefined) out[field.name] = value
    }
    return Object.freeze(out) as T
  }

  /** How many values of a field are kept (the bound is tested). */
  keptValues(name: string): number {
    const field = this.#fields?.find((f) => f.name === name)
    return field ? field.scalars.size + field.lists.size + Number(field.absent !== NONE) : 0
  }
}

const FAULT = Symbol('fault')
const NONE = Symbol('none')

/** One field's validated values, by raw value: a scalar, repeated values joined, or absent. */
class Field {
  readonly scalars = new Map<string, unknown>()
  readonly lists = new Map<string, unknown>()
  absent: unknown = NONE

  constructor(
    readonly name: string,
    readonly schema: z.ZodType,
  ) {}

  value(raw: string | string[] | undefined): unknown {
    if (raw === undefined) return this.absent !== NONE ? this.absent : (this.absent = this.#validate(raw))
    const kept = typeof raw === 'string' ? this.scalars : this.lists
    const key = typeof raw === 'string' ? raw : raw.join('\u0000')
    const value = kept.get(key)
    if (value !== undefined || kept.has(key)) return value
    const fresh = this.#validate(raw)
    if (fresh !== FAULT && key.length <= VALUE_LIMIT) {
      if (kept.size >= VALUES_PER_FIELD) kept.delete(kept.keys().next().value!)
      kept.set(key, fresh)
    }
    return fresh
  }

  #validate(raw: string | string[] | undefined): unknown {
    const result = this.schema.safeParse(raw)
    return result.success ? deepFreeze(result.data) : FAULT
  }
}

/** A plain object schema: zod validates it field by field, with nothing across fields. */
function fieldwise(schema: z.ZodType): boolean {
  if (!(schema instanceof z.ZodObject)) return false
  const def = schema._zod.def
  return def.catchall === undefined && !def.checks?.length
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
