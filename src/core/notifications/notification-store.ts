import type { RecordCollection } from '../store/collection.js'
import type { Pagination } from '../http/pagination.js'
import type { RawJson } from '../http/reply.js'
import type { Notification } from './model.js'

/** Records' bytes shared by many entries (page.ts): `bytes` is let go once the page writer drops the block. */
export interface RecordBlock {
  bytes: Uint8Array | undefined
  /** Whether a page read it since the writer last looked. */
  read: boolean
}

/** One stored notification: the public record plus what the indexes sort and filter on. */
export interface NotificationEntry {
  readonly n: Notification
  readonly clientId: string
  readonly t: number
  /**
   * Where the record's UTF-8 JSON is kept once written (entries are never edited in place):
   * bytes `[at, at + len)` of `block`, shared by many records (page.ts), so a page reads each
   * record's bytes with no object of its own in between. Every entry is made with these
   * fields, so all share one shape and loads of their fields stay fast.
   */
  block: RecordBlock | undefined
  at: number
  len: number
}

export interface NotificationQuery {
  types?: readonly string[]
  statuses?: readonly string[]
  assetIds?: readonly string[]
  from: number
  to: number
  offset: number
  limit: number
}

/**
 * What a sandbox asks of its notifications: the tuned index (`NotificationIndex`, store.ts) and
 * the plain one (`PlainNotifications`, plain-store.ts) answer the same, which
 * `test/notifications/store-reference.test.ts` checks query for query.
 */
export interface NotificationStore extends RecordCollection<NotificationEntry> {
  /** Every entry, client by client (in the order they first appeared), newest first. */
  all(): NotificationEntry[]
  entries(): NotificationEntry[]
  /** A copy whose writes the original never sees, nor the copy the original's. */
  fork(): NotificationStore
  unreviewedCount(clientId: string): number
  add(e: NotificationEntry): void
  /** Replaces a stored notification's record; its time and client never change. */
  replace(next: NotificationEntry): void
  /** Takes a notification out (the entry it held), or nothing when no entry has this id. */
  remove(id: string | number): NotificationEntry | undefined
  /**
   * A client's entries in `[from, to]` of the types, statuses and assets named (none named: all),
   * newest first (as new: the greater id first), `limit` of them from `offset`, and how many match.
   */
  query(clientId: string, q: NotificationQuery): { items: NotificationEntry[]; total: number }
  /** Told of every write: an add (`before` absent), a removal (`after` absent) or a replace (NotificationTable listens). */
  written?: (before: NotificationEntry | undefined, after: NotificationEntry | undefined) => void
}

/** Writes a list page of notifications: the tuned `PageWriter` (page.ts) and `plainListPage` answer the same bytes. */
export interface ListPages {
  listPage(items: readonly NotificationEntry[], pagination: Pagination, unreviewedCount: number): RawJson
}
