import type { z } from 'zod'
import { tableSchemas, type TableName } from './collections.js'
import { notificationSchema, type Notification } from '../notifications/model.js'
import { NotificationIndex, type NotificationEntry, notificationEntry } from '../notifications/store.js'
import type { NotificationStore } from '../notifications/notification-store.js'
import { Table } from './table.js'

export type Tables = { [K in TableName]: Table<(typeof tableSchemas)[K]> }
export type RowOf<K extends TableName> = z.infer<(typeof tableSchemas)[K]>

/** Plain rows of every collection, keyed by collection name: seeds, forks and snapshots. */
export type WorldRows = { [K in TableName]: RowOf<K>[] } & {
  notifications: Array<z.infer<typeof notificationSchema> & { clientId: string }>
}

/** The records of one sandbox. */
export class World {
  constructor(
    readonly tables: Tables,
    public notifications: NotificationStore,
  ) {}

  static async fromRows(rows: WorldRows, notifications?: NotificationStore, trusted = false): Promise<World> {
    const tables = {} as Record<TableName, Table<z.ZodType<{ id: string | number }>>>
    for (const name of Object.keys(tableSchemas) as TableName[]) {
      const table = new Table(name, tableSchemas[name] as z.ZodType<{ id: string | number }>)
      await table.load((rows[name] ?? []) as { id: string }[], trusted)
      tables[name] = table
    }
    return new World(tables as unknown as Tables, notifications ?? indexNotifications(rows.notifications))
  }

  /**
   * A world with the same records whose writes this one never sees, nor this one the fork's:
   * every table and the notification index are shared until either side writes to them.
   */
  fork(): World {
    const tables = {} as Record<TableName, Table<z.ZodType<{ id: string | number }>>>
    for (const [name, table] of Object.entries(this.tables) as [TableName, Table<z.ZodType<{ id: string | number }>>][])
      tables[name] = table.fork()
    return new World(tables as unknown as Tables, this.notifications.fork())
  }

  rows(): WorldRows {
    const out = {} as Record<string, unknown[]>
    for (const [name, table] of Object.entries(this.tables)) out[name] = table.rows()
    out.notifications = this.notifications.entries().map((e) => ({ ...e.n, clientId: e.clientId }))
    return out as WorldRows
  }
}

export function indexNotifications(rows: WorldRows['notifications']): NotificationIndex {
  return NotificationIndex.from(rows.map(toEntry))
}

/**
 * The record without its tenant key, fields in the schema's order (the JSON's order). Written
 * out rather than `{ clientId, ...n }`: the rest copy was a large share of the start at 100k
 * (`npm run bench -- --only start`).
 */
export function toEntry(r: WorldRows['notifications'][number]): NotificationEntry {
  const n: Notification = {
    id: r.id,
    type: r.type,
    name: r.name,
    alertTrigger: r.alertTrigger,
    asset: r.asset,
    location: r.location,
    address: r.address,
    status: r.status,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    calculatorId: r.calculatorId,
  }
  return notificationEntry(n, r.clientId, Date.parse(r.createdAt))
}
