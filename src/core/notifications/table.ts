import * as z from 'zod'
import type { WriteRecorder } from '../store/changes.js'
import type { WorldTable } from '../store/collection.js'
import { notificationSchema, type Notification } from './model.js'
import type { NotificationEntry, NotificationStore } from './notification-store.js'
import { NotificationIndex, notificationEntry } from './store.js'

/** A notification as a snapshot, a fixture or a patch holds it: the record and its tenant. */
export const notificationRowSchema = notificationSchema.extend({ clientId: z.string() })
export type NotificationRow = z.infer<typeof notificationRowSchema>

/**
 * The record without its tenant key, fields in the schema's order (the JSON's order). Written
 * out rather than `{ clientId, ...n }`: the rest copy was a large share of the start at 100k
 * (`npm run bench -- --only start`).
 */
export function toEntry(r: NotificationRow): NotificationEntry {
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

export const rowOf = (e: NotificationEntry): NotificationRow => ({ ...e.n, clientId: e.clientId })

export const indexNotifications = (rows: readonly NotificationRow[]): NotificationIndex =>
  NotificationIndex.from(rows.map(toEntry))

/**
 * The notifications as a table like every other collection of a world (WorldTable): records
 * with their `clientId`, inserted, changed, removed, loaded and forked alike. The list and review
 * routes read and write the sorted index (`index`) itself, which keeps their entries' bytes:
 * every write, either way, reaches `onChange` and `recorder` through the index's `written`.
 */
export class NotificationTable implements WorldTable<NotificationRow> {
  readonly name = 'notifications'
  readonly schema = notificationRowSchema
  #index!: NotificationStore
  onChange?(id: string, row: NotificationRow | undefined, inserted: boolean): void
  recorder?: WriteRecorder

  constructor(index: NotificationStore = new NotificationIndex()) {
    this.index = index
  }

  get index(): NotificationStore {
    return this.#index
  }

  set index(index: NotificationStore) {
    this.#index = index
    index.written = (before, after) => {
      const id = (after ?? before)!.n.id
      this.onChange?.(id, after && rowOf(after), !before)
      // A change of a record names its fields alone, as the index holds them; an add or a removal the whole row.
      this.recorder?.row(
        this.name,
        id,
        before && (after ? before.n : rowOf(before)),
        after && (before ? after.n : rowOf(after)),
      )
    }
  }

  get size(): number {
    return this.#index.size
  }

  get(id: string | number): NotificationRow | undefined {
    const e = this.#index.get(id)
    return e && rowOf(e)
  }

  all(): NotificationRow[] {
    return this.#index.entries().map(rowOf)
  }

  where(predicate: (row: NotificationRow) => boolean): NotificationRow[] {
    return this.all().filter(predicate)
  }

  /** Copies of the rows, sharing their nested values: an entry is never changed in place (a write replaces it). */
  rows(): NotificationRow[] {
    return this.all()
  }

  async insert(values: NotificationRow): Promise<NotificationRow> {
    const row = checked(values)
    if (this.#index.get(row.id)) throw new Error(`notifications: a record with id ${row.id} exists`)
    this.#index.add(toEntry(row))
    return row
  }

  async update(id: string | number, change: (draft: NotificationRow) => void): Promise<NotificationRow | undefined> {
    const e = this.#index.get(id)
    if (!e) return undefined
    const draft = structuredClone(rowOf(e))
    change(draft)
    const next = toEntry(checked({ ...draft, id: e.n.id }))
    // Its time and tenant place it in the index: a change of either moves it.
    if (next.t === e.t && next.clientId === e.clientId) this.#index.replace(next)
    else (this.#index.remove(e.n.id), this.#index.add(next))
    return rowOf(next)
  }

  async remove(id: string | number): Promise<NotificationRow | undefined> {
    const e = this.#index.remove(id)
    return e && rowOf(e)
  }

  async load(rows: readonly NotificationRow[], trusted = false): Promise<void> {
    this.index = indexNotifications(trusted ? rows : rows.map(checked))
  }

  fork(): NotificationTable {
    return new NotificationTable(this.#index.fork())
  }
}

function checked(values: unknown): NotificationRow {
  const result = notificationRowSchema.safeParse(values)
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new Error(`notifications: ${issue.path.join('.') || 'record'}: ${issue.message}`)
  }
  return result.data
}
