import type { z } from 'zod'
import { tableSchemas, type TableName } from './collections.js'
import { NotificationTable, type NotificationRow, notificationRowSchema } from '../notifications/table.js'
import type { WorldTable } from './collection.js'
import { Table } from './table.js'

export type Tables = { [K in TableName]: Table<(typeof tableSchemas)[K]> } & { notifications: NotificationTable }
export type RowOf<K extends TableName> = z.infer<(typeof tableSchemas)[K]>
/** Every collection's name: the tables and the notifications. */
export type CollectionName = keyof Tables

/** The schema of one record of each collection, keyed by name (the notifications first, as snapshots list them). */
export const rowSchemas = { notifications: notificationRowSchema, ...tableSchemas } as const

/** Plain rows of every collection, keyed by collection name: seeds, forks and snapshots. */
export type WorldRows = { [K in TableName]: RowOf<K>[] } & { notifications: NotificationRow[] }

/** Every collection of a world, made empty: the tables in the schemas' order, then the notifications. */
function emptyTables(): Tables {
  const tables: Record<string, WorldTable> = {}
  for (const name of Object.keys(tableSchemas) as TableName[]) tables[name] = new Table(name, tableSchemas[name])
  tables.notifications = new NotificationTable()
  return tables as Tables
}

/** The records of one sandbox: one table per collection, each answering as a WorldTable. */
export class World {
  constructor(readonly tables: Tables) {}

  static async fromRows(rows: WorldRows, trusted = false): Promise<World> {
    const world = new World(emptyTables())
    for (const [name, table] of world.collections()) await table.load(rows[name] ?? [], trusted)
    return world
  }

  /** The notifications' sorted index, which their routes read and write. */
  get notifications(): NotificationTable['index'] {
    return this.tables.notifications.index
  }

  /** The collection named so, as every collection answers; undefined for a name no world has. */
  table(name: string): WorldTable | undefined {
    return Object.hasOwn(this.tables, name) ? (this.tables[name as CollectionName] as WorldTable) : undefined
  }

  /** Replaces the collections `rows` names with theirs, checked already (fixtures); the others stay. */
  async load(rows: Partial<WorldRows>): Promise<void> {
    for (const [name, table] of this.collections()) if (rows[name]) await table.load(rows[name], true)
  }

  /** Every collection with its name, in the world's order. */
  collections(): [CollectionName, WorldTable][] {
    return Object.entries(this.tables) as [CollectionName, WorldTable][]
  }

  /**
   * A world with the same records whose writes this one never sees, nor this one the fork's:
   * every collection is shared until either side writes to it.
   */
  fork(): World {
    const tables: Record<string, WorldTable> = {}
    for (const [name, table] of this.collections()) tables[name] = table.fork()
    return new World(tables as Tables)
  }

  rows(): WorldRows {
    const out: Record<string, unknown[]> = {}
    for (const [name, table] of this.collections()) out[name] = table.rows()
    return out as WorldRows
  }
}
