import type { Pagination } from '../http/pagination.js'
import { RawJson } from '../http/reply.js'
import type { ListPages, NotificationEntry, NotificationQuery, NotificationStore } from './notification-store.js'

const newestFirst = (a: NotificationEntry, b: NotificationEntry) =>
  b.t - a.t || (a.n.id > b.n.id ? -1 : a.n.id < b.n.id ? 1 : 0)
const named = (values: readonly string[] | undefined, value: string) => !values?.length || values.includes(value)

/**
 * The notification store as plainly as it can be written: a map, a filter, a sort and a slice.
 * Too slow to serve 100k records (a scan per query); the reference the tuned index is checked
 * against, never served.
 */
export class PlainNotifications implements NotificationStore {
  readonly name = 'notifications'
  written?: (before: NotificationEntry | undefined, after: NotificationEntry | undefined) => void

  constructor(
    private byId = new Map<string, NotificationEntry>(),
    /** Clients in the order they first appeared. */
    private clients: string[] = [],
  ) {}

  get size(): number {
    return this.byId.size
  }

  get(id: string | number): NotificationEntry | undefined {
    return this.byId.get(String(id))
  }

  all(): NotificationEntry[] {
    const entries = [...this.byId.values()]
    return this.clients.flatMap((c) => entries.filter((e) => e.clientId === c).sort(newestFirst))
  }

  entries(): NotificationEntry[] {
    return this.all()
  }

  where(predicate: (e: NotificationEntry) => boolean): NotificationEntry[] {
    return this.all().filter(predicate)
  }

  fork(): PlainNotifications {
    return new PlainNotifications(new Map(this.byId), [...this.clients])
  }

  unreviewedCount(clientId: string): number {
    return this.where((e) => e.clientId === clientId && e.n.status === 'unreviewed').length
  }

  add(e: NotificationEntry): void {
    if (!this.clients.includes(e.clientId)) this.clients.push(e.clientId)
    this.byId.set(e.n.id, e)
    this.written?.(undefined, e)
  }

  remove(id: string | number): NotificationEntry | undefined {
    const prev = this.byId.get(String(id))
    if (prev) this.byId.delete(prev.n.id)
    if (prev) this.written?.(prev, undefined)
    return prev
  }

  replace(next: NotificationEntry): void {
    const prev = this.byId.get(next.n.id)
    if (!prev) throw new Error(`notification ${next.n.id} is not stored`)
    this.byId.set(next.n.id, next)
    this.written?.(prev, next)
  }

  query(clientId: string, q: NotificationQuery): { items: NotificationEntry[]; total: number } {
    const matching = this.all().filter(
      (e) =>
        e.clientId === clientId &&
        e.t >= q.from &&
        e.t <= q.to &&
        named(q.types, e.n.type) &&
        named(q.statuses, e.n.status) &&
        named(q.assetIds, e.n.asset._id),
    )
    return { items: matching.slice(q.offset, q.offset + q.limit), total: matching.length }
  }
}

/** A list page as plainly as it can be written: one JSON.stringify. */
export const plainListPages: ListPages = {
  listPage(items: readonly NotificationEntry[], pagination: Pagination, unreviewedCount: number): RawJson {
    const { page, limit, total, totalPages } = pagination
    return new RawJson(
      JSON.stringify({
        status: 'success',
        data: { notifications: items.map((e) => e.n), pagination: { page, limit, total, totalPages }, unreviewedCount },
      }),
    )
  },
}
