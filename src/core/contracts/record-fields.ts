import * as z from 'zod'
import { type CollectionName, rowSchemas } from '../store/world.js'
import { SECRET_FIELDS } from '../store/changes.js'

type Shape = Record<string, z.ZodType>

const isCollection = (name: string): name is CollectionName => Object.hasOwn(rowSchemas, name)

/** A collection's record schema, as a snapshot holds its records. */
function objectOf(collection: string): z.ZodObject<Shape> {
  if (isCollection(collection)) return rowSchemas[collection]
  throw new Error(`no collection ${collection}`)
}

/** What a field holds under its nullable, optional and default wrappers. */
const kind = (t: z.core.$ZodType): string => {
  let inner = t
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional || inner instanceof z.ZodDefault)
    inner = inner.unwrap()
  return inner._zod.def.type
}

const cache = new Map<string, string[]>()

/**
 * The fields a record's state may set: those holding one plain value (a status, a balance, a
 * related record's id, a flag), never its id, its client or a secret (a password).
 */
export function fieldsOf(collection: string): string[] {
  let fields = cache.get(collection)
  if (!fields) {
    const shape = objectOf(collection).shape
    fields = Object.keys(shape).filter(
      (k) =>
        k !== 'id' &&
        k !== 'clientId' &&
        !SECRET_FIELDS.has(k) &&
        ['string', 'number', 'boolean', 'enum', 'literal'].includes(kind(shape[k])),
    )
    cache.set(collection, fields)
  }
  return fields
}

/** How a collection's ids are written: a number (subscription plans), a UUID, or text. */
export function idRule(collection: string): { schema: z.ZodType; number: boolean; says: string } {
  const id = objectOf(collection).shape.id
  const number = kind(id) === 'number'
  const probe = id.safeParse(number ? 1 : 'x')
  const says = number
    ? 'must be an integer: this collection holds numeric ids'
    : probe.success
      ? 'must be 1 to 128 characters'
      : "must be a UUID: this collection's ids are UUIDs"
  return { schema: id, number, says }
}

/**
 * A record state's params (`full` false: `{id, ...its fields, each optional}`, strict) or the
 * record's own schema (`full`): a state's record passes the rules every record of it does.
 */
export function recordSchema(collection: string, full = false): z.ZodType {
  const object = objectOf(collection)
  if (full) return object
  const shape = object.shape
  return z
    .object({
      id: z.union([z.string().max(128, 'must be at most 128 characters'), z.number()], {
        error: (i) => (i.input === undefined ? 'is required' : 'must be a string or a number'),
      }),
      ...Object.fromEntries(fieldsOf(collection).map((f) => [f, shape[f].optional()])),
    })
    .strict()
}

/** Whether a record's field may hold null (an invoice's number before it is published). */
export function nullable(collection: string, field: string): boolean {
  return objectOf(collection).shape[field] instanceof z.ZodNullable
}
