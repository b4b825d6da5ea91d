import type { Notification } from './model.js'

/** One stored notification: the public record plus what the indexes sort and filter on. */
export interface NotificationEntry {
  readonly n: Notification
  readonly clientId: string
  readonly t: number
  json?: string
  /** Identity of this entry for caches keyed by content (entries are never edited in place). */
  serial?: number
}

interface ClientIndex {
  /** Newest first; ties broken by id, so pages are stable. */
  all: NotificationEntry[]
  /** Type, then status: no key strings to build per record (they cost a third of indexing). */
  byTypeStatus: Map<string, Map<string, NotificationEntry[]>>
  byAsset: Map<string, NotificationEntry[]>
  unreviewed: number
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

const UNREVIEWED = 'unreviewed'
const before = (a: NotificationEntry, b: NotificationEntry) => a.t > b.t || (a.t === b.t && a.n.id > b.n.id)
const newestFirst = (a: NotificationEntry, b: NotificationEntry) => b.t - a.t || (a.n.id > b.n.id ? -1 : a.n.id < b.n.id ? 1 : 0)

/** Index of the first entry that does not sort before `e` (lists are newest first). */
function position(list: NotificationEntry[], e: NotificationEntry): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(list[mid], e)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index whose time is at most `t` (or below `t` when `strict`). */
function firstAtOrBelow(list: NotificationEntry[], t: number, strict: boolean): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (strict ? list[mid].t >= t : list[mid].t > t) lo = mid + 1
    else hi = mid
  }
  return lo
}

function insertSorted(list: NotificationEntry[], e: NotificationEntry) {
  list.splice(position(list, e), 0, e)
}

function removeSorted(list: NotificationEntry[], e: NotificationEntry) {
  const i = position(list, e)
  if (list[i]?.n.id === e.n.id) list.splice(i, 1)
}

function replaceSorted(list: NotificationEntry[], prev: NotificationEntry, next: NotificationEntry) {
  const i = position(list, prev)
  if (list[i]?.n.id === prev.n.id) list[i] = next
}

/**
 * The notification store. @msw/data scans for every find (about 30 ms at 100k records) and
 * sorts after `take`, so the hot paths (by client, by date, by id, by type and status, by
 * asset) are served from these sorted arrays. Entries are immutable. A fork shares every
 * structure with its parent and copies one only when either side first writes to it, so a
 * new sandbox costs no copy of 100k records (bench/, BENCHMARKS.md).
 */
export class NotificationIndex {
  #byId = new Map<string, NotificationEntry>()
  #clients = new Map<string, ClientIndex>()
  /** What this index may change in place; the rest is shared with a fork and copied first. */
  #mine = new Set<object>([this.#byId, this.#clients])
  /** Told of every added or replaced entry (the Durable Object's storage follows it). */
  onChange?: (e: NotificationEntry) => void

  static from(entries: Iterable<NotificationEntry>): NotificationIndex {
    const index = new NotificationIndex()
    const buckets = new Map<string, NotificationEntry[]>()
    for (const e of entries) {
      index.#byId.set(e.n.id, e)
      let list = buckets.get(e.clientId)
      if (!list) buckets.set(e.clientId, (list = []))
      list.push(e)
    }
    for (const [clientId, list] of buckets) {
      list.sort(newestFirst)
      const ci = index.#client(clientId)
      ci.all = list
      for (const e of list) {
        index.#bucket(ci, e.n.type, e.n.status).push(e)
        index.#assetList(ci, e.n.asset._id).push(e)
        if (e.n.status === UNREVIEWED) ci.unreviewed++
      }
    }
    return index
  }

  fork(): NotificationIndex {
    const copy = new NotificationIndex()
    copy.#byId = this.#byId
    copy.#clients = new Map(this.#clients)
    copy.#mine = new Set([copy.#clients])
    // Shared from now on, for this side as much as for the copy.
    this.#mine = new Set([this.#clients])
    return copy
  }

  get size(): number {
    return this.#byId.size
  }

  get(id: string): NotificationEntry | undefined {
    return this.#byId.get(id)
  }

  entries(): NotificationEntry[] {
    return [...this.#clients.values()].flatMap((ci) => ci.all)
  }

  unreviewedCount(clientId: string): number {
    return this.#clients.get(clientId)?.unreviewed ?? 0
  }

  add(e: NotificationEntry): void {
    this.#ownById().set(e.n.id, e)
    const ci = this.#ownClient(e.clientId)
    insertSorted(this.#ownAll(ci), e)
    insertSorted(this.#ownBucket(ci, e.n.type, e.n.status), e)
    insertSorted(this.#ownAsset(ci, e.n.asset._id), e)
    if (e.n.status === UNREVIEWED) ci.unreviewed++
    this.onChange?.(e)
  }

  /** Replaces a notification's record; its time never changes, so positions hold. */
  replace(next: NotificationEntry): void {
    const prev = this.#byId.get(next.n.id)
    if (!prev) throw new Error(`notification ${next.n.id} is not stored`)
    this.#ownById().set(next.n.id, next)
    const ci = this.#ownClient(prev.clientId)
    replaceSorted(this.#ownAll(ci), prev, next)
    replaceSorted(this.#ownAsset(ci, prev.n.asset._id), prev, next)
    if (prev.n.type === next.n.type && prev.n.status === next.n.status) replaceSorted(this.#ownBucket(ci, prev.n.type, prev.n.status), prev, next)
    else {
      removeSorted(this.#ownBucket(ci, prev.n.type, prev.n.status), prev)
      insertSorted(this.#ownBucket(ci, next.n.type, next.n.status), next)
    }
    ci.unreviewed += Number(next.n.status === UNREVIEWED) - Number(prev.n.status === UNREVIEWED)
    this.onChange?.(next)
  }

  query(clientId: string, q: NotificationQuery): { items: NotificationEntry[]; total: number } {
    const ci = this.#clients.get(clientId)
    if (!ci) return { items: [], total: 0 }
    const types = q.types?.length ? new Set(q.types) : undefined
    const statuses = q.statuses?.length ? new Set(q.statuses) : undefined
    let lists: NotificationEntry[][]
    let keep: ((e: NotificationEntry) => boolean) | undefined
    if (q.assetIds?.length) {
      lists = [...new Set(q.assetIds)].map((a) => ci.byAsset.get(a) ?? [])
      if (types || statuses) keep = (e) => (!types || types.has(e.n.type)) && (!statuses || statuses.has(e.n.status))
    } else if (!types && !statuses) {
      lists = [ci.all]
    } else {
      lists = []
      for (const [type, byStatus] of ci.byTypeStatus) {
        if (types && !types.has(type)) continue
        for (const [status, list] of byStatus) if (!statuses || statuses.has(status)) lists.push(list)
      }
    }
    // Each list narrowed to the date range by binary search.
    const ranges = lists.map((list) => ({ list, at: firstAtOrBelow(list, q.to, false), end: firstAtOrBelow(list, q.from, true) }))
    if (ranges.length === 1 && !keep) {
      // One sorted list: the page is a slice, however deep.
      const { list, at, end } = ranges[0]
      const start = Math.min(end, at + q.offset)
      return { items: list.slice(start, Math.min(end, start + q.limit)), total: Math.max(0, end - at) }
    }
    let total = 0
    for (const r of ranges) {
      if (!keep) total += Math.max(0, r.end - r.at)
      else for (let i = r.at; i < r.end; i++) if (keep(r.list[i])) total++
    }
    const items: NotificationEntry[] = []
    let skip = q.offset
    while (items.length < q.limit) {
      let best: (typeof ranges)[number] | undefined
      for (const r of ranges) {
        while (keep && r.at < r.end && !keep(r.list[r.at])) r.at++
        if (r.at < r.end && (!best || before(r.list[r.at], best.list[best.at]))) best = r
      }
      if (!best) break
      const e = best.list[best.at++]
      if (skip > 0) skip--
      else items.push(e)
    }
    return { items, total }
  }

  // Structures created here are new, so they are this index's own.

  #client(clientId: string): ClientIndex {
    let ci = this.#clients.get(clientId)
    if (!ci) {
      this.#clients.set(clientId, (ci = { all: [], byTypeStatus: new Map(), byAsset: new Map(), unreviewed: 0 }))
      this.#mine.add(ci).add(ci.all)
    }
    return ci
  }

  #bucket(ci: ClientIndex, type: string, status: string): NotificationEntry[] {
    let byStatus = ci.byTypeStatus.get(type)
    if (!byStatus) {
      ci.byTypeStatus.set(type, (byStatus = new Map()))
      this.#mine.add(byStatus)
    }
    let list = byStatus.get(status)
    if (!list) {
      byStatus.set(status, (list = []))
      this.#mine.add(list)
    }
    return list
  }

  #assetList(ci: ClientIndex, assetId: string): NotificationEntry[] {
    let list = ci.byAsset.get(assetId)
    if (!list) {
      ci.byAsset.set(assetId, (list = []))
      this.#mine.add(list)
    }
    return list
  }

  // Copy on first write: each structure is copied once, then owned.

  #ownById(): Map<string, NotificationEntry> {
    if (!this.#mine.has(this.#byId)) this.#mine.add((this.#byId = new Map(this.#byId)))
    return this.#byId
  }

  #ownClient(clientId: string): ClientIndex {
    if (!this.#mine.has(this.#clients)) this.#mine.add((this.#clients = new Map(this.#clients)))
    let ci = this.#client(clientId)
    if (!this.#mine.has(ci)) {
      ci = { ...ci, byTypeStatus: new Map(ci.byTypeStatus), byAsset: new Map(ci.byAsset) }
      this.#clients.set(clientId, ci)
      this.#mine.add(ci)
    }
    return ci
  }

  #ownAll(ci: ClientIndex): NotificationEntry[] {
    if (!this.#mine.has(ci.all)) this.#mine.add((ci.all = ci.all.slice()))
    return ci.all
  }

  #ownBucket(ci: ClientIndex, type: string, status: string): NotificationEntry[] {
    let byStatus = ci.byTypeStatus.get(type)
    if (byStatus && !this.#mine.has(byStatus)) {
      ci.byTypeStatus.set(type, (byStatus = new Map(byStatus)))
      this.#mine.add(byStatus)
    }
    let list = this.#bucket(ci, type, status)
    if (!this.#mine.has(list)) {
      ci.byTypeStatus.get(type)!.set(status, (list = list.slice()))
      this.#mine.add(list)
    }
    return list
  }

  #ownAsset(ci: ClientIndex, assetId: string): NotificationEntry[] {
    let list = this.#assetList(ci, assetId)
    if (!this.#mine.has(list)) {
      ci.byAsset.set(assetId, (list = list.slice()))
      this.#mine.add(list)
    }
    return list
  }
}
