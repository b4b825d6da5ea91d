import * as z from 'zod'
import { badRequest } from '../http/reply.js'
import { validate } from '../http/validate.js'
import { type CollectionName, rowSchemas, type WorldRows } from './world.js'

/** Records of one collection, each id once. */
const collection = (row: z.ZodType<{ id: string | number }>) =>
  z.array(row).superRefine((rows, ctx) => {
    const seen = new Set<string>()
    rows.forEach((r, i) => {
      const id = String(r.id)
      if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate id ${id}` })
      seen.add(id)
    })
  })

/** The schema of every collection of a world (snapshots and fixtures), keyed by collection name. */
export const collectionSchemas = {} as Record<CollectionName, z.ZodType>
for (const name of Object.keys(rowSchemas) as CollectionName[]) collectionSchemas[name] = collection(rowSchemas[name])

export type { CollectionName }
export const collectionNames = Object.keys(collectionSchemas) as CollectionName[]

/** What a caller gives: some collections, each a list of records (schema input: defaults may be left out). */
export type FixtureRows = { [K in CollectionName]?: z.input<(typeof rowSchemas)[K]>[] }

/** Fixtures checked once: what replaces the seeded collections in every world. */
export interface Fixtures {
  rows: Partial<WorldRows>
}

const parsed = new WeakMap<object, Fixtures>()

/**
 * Checks fixtures against their collections' schemas, once per object: a collection no world has,
 * or a record that breaks its schema, is a 400 naming the collection, the record and the rule.
 */
export function parseFixtures(input: FixtureRows): Fixtures {
  const hit = parsed.get(input)
  if (hit) return hit
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw badRequest('fixtures: must be an object keyed by collection name')
  const rows: Record<string, unknown[]> = {}
  for (const [name, records] of Object.entries(input)) {
    if (!(collectionNames as string[]).includes(name))
      throw badRequest(`fixtures: ${name} is no collection; collections: ${collectionNames.join(', ')}`)
    // Wrapped, so a rule names its place as `invoices.3.clientId`.
    rows[name] = validate(z.object({ [name]: collectionSchemas[name as CollectionName] }), { [name]: records }, 'body')[
      name
    ] as unknown[]
  }
  const fixtures: Fixtures = { rows: rows as Partial<WorldRows> }
  parsed.set(input, fixtures)
  return fixtures
}
