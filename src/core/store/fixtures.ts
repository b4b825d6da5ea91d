import * as z from 'zod'
import { badRequest } from '../http/reply.js'
import { validate } from '../http/validate.js'
import { notificationSchema } from '../notifications/model.js'
import type { NotificationStore } from '../notifications/notification-store.js'
import { tableSchemas, type TableName } from './collections.js'
import { indexNotifications, type WorldRows } from './world.js'

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

export const notificationRowSchema = notificationSchema.extend({ clientId: z.string() })

/** The schema of every collection of a world (snapshots and fixtures), keyed by collection name. */
export const collectionSchemas = {
  notifications: collection(notificationRowSchema),
  ...(Object.fromEntries(
    Object.entries(tableSchemas).map(([name, schema]) => [
      name,
      collection(schema as z.ZodType<{ id: string | number }>),
    ]),
  ) as unknown as Record<TableName, z.ZodType>),
}

export type CollectionName = keyof WorldRows
export const collectionNames = Object.keys(collectionSchemas) as CollectionName[]

/** What a caller gives: some collections, each a list of records (schema input: defaults may be left out). */
export type FixtureRows = { [K in TableName]?: z.input<(typeof tableSchemas)[K]>[] } & {
  notifications?: z.input<typeof notificationRowSchema>[]
}

/** Fixtures checked once: what replaces the seeded collections in every world. */
export interface Fixtures {
  rows: Partial<WorldRows>
  notifications?: NotificationStore
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
  if (rows.notifications) fixtures.notifications = indexNotifications(rows.notifications as WorldRows['notifications'])
  parsed.set(input, fixtures)
  return fixtures
}
