import type { Notification } from '../model/notifications.js'

/** One stored notification: the public record plus what the indexes sort and filter on. */
export interface NotificationEntry {
  readonly n: Notification
  readonly clientId: string
  readonly t: number
  json?: string
}

interface ClientIndex {
  /** Newest first; ties broken by id, so pages are stable. */
  all: NotificationEntry[]
  byTypeStatus: Map<string, NotificationEntry[]>
  byAsset: Map<string, NotificationEntry[]>
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

const before = (a: NotificationEntry, b: NotificationEntry) => a.t > b.t || (a.t === b.t && a.n.id > b.n.id)
const key = (type: string, status: string) => `${type}|${status}`

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
 * asset) are served from these sorted arrays. Entries are immutable and shared between forks;
 * a write replaces the entry in the forked arrays only.
 */
export class NotificationIndex {
  #byId = new Map<string, NotificationEntry>()
  #clients = new Map<string, ClientIndex>()

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
      list.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
      const ci = index.#client(clientId)
      ci.all = list
      for (const e of list) {
        index.#bucket(ci.byTypeStatus, key(e.n.type, e.n.status)).push(e)
        index.#bucket(ci.byAsset, e.n.asset._id).push(e)
      }
    }
    return index
  }

  fork(): NotificationIndex {
    const copy = new NotificationIndex()
    copy.#byId = new Map(this.#byId)
    for (const [clientId, ci] of this.#clients) {
      copy.#clients.set(clientId, {
        all: ci.all.slice(),
        byTypeStatus: new Map([...ci.byTypeStatus].map(([k, v]) => [k, v.slice()])),
        byAsset: new Map([...ci.byAsset].map(([k, v]) => [k, v.slice()])),
      })
    }
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
    const ci = this.#clients.get(clientId)
    if (!ci) return 0
    let total = 0
    for (const [k, list] of ci.byTypeStatus) if (k.endsWith('|unreviewed')) total += list.length
    return total
  }

  add(e: NotificationEntry): void {
    this.#byId.set(e.n.id, e)
    const ci = this.#client(e.clientId)
    insertSorted(ci.all, e)
    insertSorted(this.#bucket(ci.byTypeStatus, key(e.n.type, e.n.status)), e)
    insertSorted(this.#bucket(ci.byAsset, e.n.asset._id), e)
  }

  /** Replaces a notification's record; its time never changes, so positions hold. */
  replace(next: NotificationEntry): void {
    const prev = this.#byId.get(next.n.id)
    if (!prev) throw new Error(`notification ${next.n.id} is not stored`)
    this.#byId.set(next.n.id, next)
    const ci = this.#client(prev.clientId)
    replaceSorted(ci.all, prev, next)
    replaceSorted(this.#bucket(ci.byAsset, prev.n.asset._id), prev, next)
    const from = key(prev.n.type, prev.n.status)
    const to = key(next.n.type, next.n.status)
    if (from === to) replaceSorted(this.#bucket(ci.byTypeStatus, from), prev, next)
    else {
      removeSorted(this.#bucket(ci.byTypeStatus, from), prev)
      insertSorted(this.#bucket(ci.byTypeStatus, to), next)
    }
  }

  query(clientId: string, q: NotificationQuery): { items: NotificationEntry[]; total: number } {
    const ci = this.#clients.get(clientId)
    if (!ci) return { items: [], total: 0 }
    let lists: NotificationEntry[][]
    let keep: ((e: NotificationEntry) => boolean) | undefined
    if (q.assetIds?.length) {
      lists = [...new Set(q.assetIds)].map((a) => ci.byAsset.get(a) ?? [])
      const types = q.types?.length ? new Set(q.types) : undefined
      const statuses = q.statuses?.length ? new Set(q.statuses) : undefined
      if (types || statuses) keep = (e) => (!types || types.has(e.n.type)) && (!statuses || statuses.has(e.n.status))
    } else if (!q.types?.length && !q.statuses?.length) {
      lists = [ci.all]
    } else {
      lists = []
      const types = q.types?.length ? new Set(q.types) : undefined
      const statuses = q.statuses?.length ? new Set(q.statuses) : undefined
      for (const [k, list] of ci.byTypeStatus) {
        const [type, status] = k.split('|')
        if ((!types || types.has(type)) && (!statuses || statuses.has(status))) lists.push(list)
      }
    }
    // Each list narrowed to the date range by binary search.
    const ranges = lists.map((list) => ({ list, at: firstAtOrBelow(list, q.to, false), end: firstAtOrBelow(list, q.from, true) }))
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

  #client(clientId: string): ClientIndex {
    let ci = this.#clients.get(clientId)
    if (!ci) this.#clients.set(clientId, (ci = { all: [], byTypeStatus: new Map(), byAsset: new Map() }))
    return ci
  }

  #bucket(map: Map<string, NotificationEntry[]>, k: string): NotificationEntry[] {
    let list = map.get(k)
    if (!list) map.set(k, (list = []))
    return list
  }
}
