import type { Notification } from './model.js'
import type { NotificationEntry, NotificationQuery, NotificationStore } from './notification-store.js'

export type { NotificationEntry, NotificationQuery, RecordBlock } from './notification-store.js'

/** A new entry: its bytes are not written yet. */
export const notificationEntry = (n: Notification, clientId: string, t: number): NotificationEntry => ({
  n,
  clientId,
  t,
  block: undefined,
  at: 0,
  len: 0,
})

/**
 * Sorted lists of one scope (a client, or one asset of a client), by slot: type code × 16 +
 * status code, with ANY on the side a list does not filter (an array, not a Map: indexing
 * looks up six lists a record; `npm run bench -- --only start` at 100k). Every scope keeps
 * three lists per record: (type, status), (type, any) and (any, any). A query takes the lists
 * of its filters whole, so counting is two binary searches per list and no record is tested
 * against a predicate (`--only varied`). A status-only query merges the (type, status) lists of
 * every type: an (any, status) list would be half the client's records, and a review would
 * move a record between two of them, a splice that long (the writes of `--only varied`).
 * The plain version of all this is `PlainNotifications` (plain-store.ts), which
 * test/notifications/store-reference.test.ts compares it with.
 */
type Scope = (List | undefined)[]

/**
 * A sorted list: its entries and their times beside them in a plain number array. Binary
 * searches and the merge read the times, not entries spread over the heap (`npm run bench --
 * --only varied`). Read newest first (index 0 the newest) through `eAt` and `tAt`, but kept
 * oldest first: a review moves a recent record between lists, and a splice near the tail
 * shifts a few entries where one near the head shifted the whole list (the PATCH case of
 * `npm run bench -- --only varied`, docs/benchmarks-history.md).
 */
interface List {
  e: NotificationEntry[]
  t: number[]
}

/** The entry of rank `i`, newest first. */
const eAt = (list: List, i: number) => list.e[list.e.length - 1 - i]
/** Its time. */
const tAt = (list: List, i: number) => list.t[list.t.length - 1 - i]

interface ClientIndex {
  scope: Scope
  assets: Map<string, Scope>
  unreviewed: number
}

/** Small-integer codes of types and statuses, shared by an index and its forks (only ever added to). */
interface Codes {
  types: Map<string, number>
  statuses: Map<string, number>
}

/** Codes 0–14 name values; 15 is any. The spec has 7 types and 3 statuses. */
const ANY = 15
const SLOTS = 256
const slot = (type: number, status: number) => type * 16 + status
const newScope = (): Scope => new Array(SLOTS).fill(undefined)
const UNREVIEWED = 'unreviewed'
/** Below this offset a page is found by walking the merged lists; past it, by bisection. */
const WALK = 256
const newestFirst = (a: NotificationEntry, b: NotificationEntry) =>
  b.t - a.t || (a.n.id > b.n.id ? -1 : a.n.id < b.n.id ? 1 : 0)

/** Whether the entry at `i` of `list` sorts before `e`: newer, or as new with a greater id. */
const sortsBefore = (list: List, i: number, e: NotificationEntry) =>
  tAt(list, i) > e.t || (tAt(list, i) === e.t && eAt(list, i).n.id > e.n.id)

/** Index of the first entry in `list[lo, hi)` that does not sort before `e` (lists are newest first). */
function position(list: List, e: NotificationEntry, lo = 0, hi = list.e.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sortsBefore(list, mid, e)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index whose time is at most `t` (or below `t` when `strict`). */
function firstAtOrBelow(list: List, t: number, strict: boolean): number {
  let lo = 0
  let hi = list.t.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const time = tAt(list, mid)
    if (strict ? time >= t : time > t) lo = mid + 1
    else hi = mid
  }
  return lo
}

// Rank i newest first is index length - 1 - i of the arrays: an entry ranked i goes after
// the one ranked i (index length - 1 - i), at index length - i.
function insertSorted(list: List, e: NotificationEntry) {
  const at = list.e.length - position(list, e)
  list.e.splice(at, 0, e)
  list.t.splice(at, 0, e.t)
}

function removeSorted(list: List, e: NotificationEntry) {
  const i = position(list, e)
  if (i >= list.e.length || eAt(list, i).n.id !== e.n.id) return
  const at = list.e.length - 1 - i
  list.e.splice(at, 1)
  list.t.splice(at, 1)
}

function replaceSorted(list: List, prev: NotificationEntry, next: NotificationEntry) {
  const i = position(list, prev)
  if (i < list.e.length && eAt(list, i).n.id === prev.n.id) list.e[list.e.length - 1 - i] = next
}

/** Adds the entry as the oldest so far: no older one is appended after it. */
const append = (list: List, e: NotificationEntry) => void (list.e.push(e), list.t.push(e.t))

/** A list narrowed to a date range: entries `list[at, end)`. */
interface Range {
  list: List
  at: number
  end: number
}

/**
 * Where the entry of rank `offset` in the merge of `ranges` sits in each list. Bisection: a
 * candidate from the widest window is ranked by a binary search in every list, and every
 * window narrows to the side the target is on; O(k² log² n) for k lists, whatever the offset.
 */
function seek(ranges: Range[], offset: number): number[] {
  const lo = ranges.map((r) => r.at)
  const hi = ranges.map((r) => r.end)
  const at = new Array<number>(ranges.length)
  for (;;) {
    let j = -1
    for (let i = 0; i < ranges.length; i++) if (hi[i] > lo[i] && (j < 0 || hi[i] - lo[i] > hi[j] - lo[j])) j = i
    if (j < 0) return lo
    const mid = (lo[j] + hi[j]) >>> 1
    const m = eAt(ranges[j].list, mid)
    let rank = 0
    for (let i = 0; i < ranges.length; i++) {
      at[i] = i === j ? mid : position(ranges[i].list, m, lo[i], hi[i])
      rank += at[i] - ranges[i].at
    }
    if (rank === offset) return at
    if (rank < offset) {
      for (let i = 0; i < ranges.length; i++) lo[i] = at[i]
      lo[j] = mid + 1
    } else {
      for (let i = 0; i < ranges.length; i++) hi[i] = at[i]
    }
  }
}

/**
 * `limit` entries of the merge of `ranges` from rank `offset`, newest first. The lists' heads sit
 * in a binary heap, newest on top: log k comparisons an entry, not k (a status-only filter
 * merges 7 to 21 lists; `npm run bench -- --only varied`).
 */
function page(ranges: Range[], offset: number, limit: number): NotificationEntry[] {
  const heads = offset > WALK ? seek(ranges, offset) : ranges.map((r) => r.at)
  let skip = offset > WALK ? 0 : offset
  const items: NotificationEntry[] = []
  const heap: number[] = []
  for (let i = 0; i < ranges.length; i++) if (heads[i] < ranges[i].end) heap.push(i)
  const newer = (a: number, b: number) => {
    const ta = tAt(ranges[a].list, heads[a])
    const tb = tAt(ranges[b].list, heads[b])
    return ta > tb || (ta === tb && eAt(ranges[a].list, heads[a]).n.id > eAt(ranges[b].list, heads[b]).n.id)
  }
  const sink = (at: number) => {
    for (;;) {
      const l = 2 * at + 1
      if (l >= heap.length) return
      const c = l + 1 < heap.length && newer(heap[l + 1], heap[l]) ? l + 1 : l
      if (!newer(heap[c], heap[at])) return
      ;[heap[c], heap[at]] = [heap[at], heap[c]]
      at = c
    }
  }
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) sink(i)
  while (items.length < limit && heap.length) {
    const i = heap[0]
    const e = eAt(ranges[i].list, heads[i]++)
    if (skip > 0) skip--
    else items.push(e)
    if (heads[i] >= ranges[i].end) ((heap[0] = heap[heap.length - 1]), heap.pop())
    sink(0)
  }
  return items
}

/**
 * The notification store, beside the @msw/data tables on purpose: @msw/data scans for every
 * find (docs/architecture.md, "The store"; src/core/store/msw-data.test.ts pins that it sorts
 * after `take`), so lists are served from these sorted arrays. Both meet RecordCollection (the
 * records here are entries: the public record, its client and time). Entries are immutable. A
 * fork shares every structure with its parent and copies one only when either side first
 * writes to it, so a new sandbox costs no copy of the records (`npm run bench -- --only start,memory`).
 */
export class NotificationIndex implements NotificationStore {
  readonly name = 'notifications'
  #byId = new Map<string, NotificationEntry>()
  #clients = new Map<string, ClientIndex>()
  #codes: Codes = { types: new Map(), statuses: new Map() }
  /** What this index may change in place; the rest is shared with a fork and copied first. */
  #mine = new Set<object>([this.#byId, this.#clients])
  written?: (before: NotificationEntry | undefined, after: NotificationEntry | undefined) => void

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
      list.sort((a, b) => newestFirst(b, a))
      const ci = index.#client(clientId)
      // Oldest first, so every list is built by appending.
      for (const e of list) {
        const type = index.#code(index.#codes.types, e.n.type)
        const status = index.#code(index.#codes.statuses, e.n.status)
        const asset = index.#asset(ci, e.n.asset._id)
        for (const at of [slot(type, status), slot(type, ANY), slot(ANY, ANY)]) {
          append(ci.scope[at] ?? index.#list(ci.scope, at), e)
          append(asset[at] ?? index.#list(asset, at), e)
        }
        if (e.n.status === UNREVIEWED) ci.unreviewed++
      }
    }
    return index
  }

  fork(): NotificationIndex {
    const copy = new NotificationIndex()
    copy.#byId = this.#byId
    copy.#clients = new Map(this.#clients)
    copy.#codes = this.#codes
    copy.#mine = new Set([copy.#clients])
    // Shared from now on, for this side as much as for the copy.
    this.#mine = new Set([this.#clients])
    return copy
  }

  get size(): number {
    return this.#byId.size
  }

  get(id: string | number): NotificationEntry | undefined {
    return this.#byId.get(String(id))
  }

  /** Every entry, client by client, newest first. */
  all(): NotificationEntry[] {
    return [...this.#clients.values()].flatMap((ci) => ci.scope[slot(ANY, ANY)]?.e.slice().reverse() ?? [])
  }

  entries(): NotificationEntry[] {
    return this.all()
  }

  where(predicate: (e: NotificationEntry) => boolean): NotificationEntry[] {
    return this.all().filter(predicate)
  }

  unreviewedCount(clientId: string): number {
    return this.#clients.get(clientId)?.unreviewed ?? 0
  }

  add(e: NotificationEntry): void {
    this.#ownById().set(e.n.id, e)
    const ci = this.#ownClient(e.clientId)
    for (const [scope, slot] of this.#places(ci, e)) insertSorted(this.#ownList(scope, slot), e)
    if (e.n.status === UNREVIEWED) ci.unreviewed++
    this.written?.(undefined, e)
  }

  remove(id: string | number): NotificationEntry | undefined {
    const prev = this.#byId.get(String(id))
    if (!prev) return undefined
    this.#ownById().delete(prev.n.id)
    const ci = this.#ownClient(prev.clientId)
    for (const [scope, at] of this.#places(ci, prev)) removeSorted(this.#ownList(scope, at), prev)
    if (prev.n.status === UNREVIEWED) ci.unreviewed--
    this.written?.(prev, undefined)
    return prev
  }

  /** Replaces a notification's record; its time never changes, so positions hold. */
  replace(next: NotificationEntry): void {
    const prev = this.#byId.get(next.n.id)
    if (!prev) throw new Error(`notification ${next.n.id} is not stored`)
    this.#ownById().set(next.n.id, next)
    const ci = this.#ownClient(prev.clientId)
    const was = this.#places(ci, prev)
    const will = this.#places(ci, next)
    const same = (a: [Scope, number], b: [Scope, number]) => a[0] === b[0] && a[1] === b[1]
    for (const p of was) {
      const list = this.#ownList(p[0], p[1])
      if (will.some((q) => same(p, q))) replaceSorted(list, prev, next)
      else removeSorted(list, prev)
    }
    for (const q of will) if (!was.some((p) => same(p, q))) insertSorted(this.#ownList(q[0], q[1]), next)
    ci.unreviewed += Number(next.n.status === UNREVIEWED) - Number(prev.n.status === UNREVIEWED)
    this.written?.(prev, next)
  }

  query(clientId: string, q: NotificationQuery): { items: NotificationEntry[]; total: number } {
    const ci = this.#clients.get(clientId)
    if (!ci) return { items: [], total: 0 }
    const scopes: Scope[] = []
    if (!q.assetIds?.length) scopes.push(ci.scope)
    else
      for (const a of q.assetIds) {
        const scope = ci.assets.get(a)
        // An asset named twice counts once.
        if (scope && !scopes.includes(scope)) scopes.push(scope)
      }
    // A status filter without a type filter takes every type's lists.
    const types =
      !q.types?.length && q.statuses?.length
        ? [...this.#codes.types.values()]
        : this.#codesOf(this.#codes.types, q.types)
    const statuses = this.#codesOf(this.#codes.statuses, q.statuses)
    // Each list narrowed to the date range by binary search; empty ones dropped.
    const ranges: Range[] = []
    let total = 0
    for (const scope of scopes) {
      for (const type of types) {
        for (const status of statuses) {
          const list = scope[slot(type, status)]
          if (!list) continue
          const at = firstAtOrBelow(list, q.to, false)
          const end = firstAtOrBelow(list, q.from, true)
          if (end <= at) continue
          ranges.push({ list, at, end })
          total += end - at
        }
      }
    }
    if (q.offset >= total) return { items: [], total }
    if (ranges.length === 1) {
      // One sorted list: the page is a slice, however deep.
      const { list, at, end } = ranges[0]
      const n = list.e.length
      const from = at + q.offset
      const to = Math.min(end, from + q.limit)
      return { items: list.e.slice(n - to, n - from).reverse(), total }
    }
    return { items: page(ranges, q.offset, q.limit), total }
  }

  /** Codes of the values a filter names (unknown ones match nothing), or ANY for no filter. */
  #codesOf(codes: Map<string, number>, values: readonly string[] | undefined): number[] {
    if (!values?.length) return [ANY]
    const out: number[] = []
    for (const v of values) {
      const code = codes.get(v)
      if (code !== undefined && !out.includes(code)) out.push(code)
    }
    return out
  }

  #code(codes: Map<string, number>, value: string): number {
    let code = codes.get(value)
    if (code === undefined) {
      if (codes.size >= ANY) throw new Error(`notification index: more than ${ANY} distinct values (${value})`)
      codes.set(value, (code = codes.size))
    }
    return code
  }

  /** The six lists an entry belongs to: three slots in its client's scope and three in its asset's. */
  #places(ci: ClientIndex, e: NotificationEntry): [Scope, number][] {
    const type = this.#code(this.#codes.types, e.n.type)
    const status = this.#code(this.#codes.statuses, e.n.status)
    const slots = [slot(type, status), slot(type, ANY), slot(ANY, ANY)]
    const asset = this.#ownAsset(ci, e.n.asset._id)
    return [...slots.map((s): [Scope, number] => [ci.scope, s]), ...slots.map((s): [Scope, number] => [asset, s])]
  }

  // Structures created here are new, so they are this index's own.

  #client(clientId: string): ClientIndex {
    let ci = this.#clients.get(clientId)
    if (!ci) {
      this.#clients.set(clientId, (ci = { scope: newScope(), assets: new Map(), unreviewed: 0 }))
      this.#mine.add(ci).add(ci.scope).add(ci.assets)
    }
    return ci
  }

  #asset(ci: ClientIndex, assetId: string): Scope {
    let scope = ci.assets.get(assetId)
    if (!scope) {
      ci.assets.set(assetId, (scope = newScope()))
      this.#mine.add(scope)
    }
    return scope
  }

  #list(scope: Scope, at: number): List {
    let list = scope[at]
    if (!list) {
      scope[at] = list = { e: [], t: [] }
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
      ci = { scope: ci.scope.slice(), assets: new Map(ci.assets), unreviewed: ci.unreviewed }
      this.#clients.set(clientId, ci)
      this.#mine.add(ci).add(ci.scope).add(ci.assets)
    }
    return ci
  }

  /** `ci` is owned already. */
  #ownAsset(ci: ClientIndex, assetId: string): Scope {
    let scope = this.#asset(ci, assetId)
    if (!this.#mine.has(scope)) {
      ci.assets.set(assetId, (scope = scope.slice()))
      this.#mine.add(scope)
    }
    return scope
  }

  /** `scope` is owned already. */
  #ownList(scope: Scope, at: number): List {
    let list = this.#list(scope, at)
    if (!this.#mine.has(list)) {
      scope[at] = list = { e: list.e.slice(), t: list.t.slice() }
      this.#mine.add(list)
    }
    return list
  }
}
