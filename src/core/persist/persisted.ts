import type { Session } from '../auth/sessions.js'
import type { Clock } from '../clock/clock.js'
import type { JournalEntry } from '../sandbox/journal.js'
import { type OutboxEntry, outboxNumber } from '../sandbox/outbox.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { WORLD_PARTS } from '../sandbox/parts.js'
import type { AnyRow } from '../store/collection.js'
import type { World, WorldRows } from '../store/world.js'
import type { StateBackend } from './backend.js'

/**
 * The persistence port: a sandbox kept in a key-value backend as named parts, one small value
 * per thing that changes, so a write stores what it changed (and no value nears a Durable
 * Object's 2 MB limit):
 * - `meta`: the seed, `base` (the seed the records derive from, or null when every record is
 *   stored: after a snapshot restore, or always with `whole`), and what the runtime adds;
 * - `r:<collection>:<id>` (`n:<id>` for a notification, `recordKey`): a record (`{s, v}`:
 *   insertion order and the row, null once removed), from every collection's `onChange`; a backend
 *   copies a value when it is put (IndexedDB and Durable Object storage clone it), or keeps the
 *   row itself (the file's store in memory, written out whole at the save);
 * - `j:`, `o:`, `t:`: one journal entry, outbox entry, session each; a journal entry is kept in
 *   the slot of its id in the journal's ring (`k:jfirst` says which are current), so a new
 *   entry replaces one gone from the ring rather than adding a key and deleting another;
 * - `k:*`: ids, scenarios, per-scenario counters, draws of the seeded generator, the signing
 *   key, the clock (kept relative to real time), the last use.
 */
export interface StoredMeta {
  seed: number
  base: number | null
  seq: number
  [field: string]: unknown
}

export interface PersistOptions {
  /** Every record stored, not only changes since the seed (a file that must hold a whole snapshot). */
  whole?: boolean
  /** Kept in `meta` beside the seed: the object's id and seed instant, the page's options. */
  meta?: Record<string, unknown>
  /** Whether a stored state may be resumed; one it refuses is replaced by the sandbox as it is. */
  accepts?: (meta: StoredMeta) => boolean
  /** How long what reads change (journal, sliding sessions, scenario counters) may wait to be stored, batched. */
  readBatchMs?: number
  /**
   * The journal is stored with the batch only, a write's too (its records are stored with its
   * answer): a Durable Object's writes then store a few values, not the journal since the last
   * one (docs/engines.md). Off, a write stores the journal too (the browser: a reload right
   * after a request finds it in the journal).
   */
  journalInBatches?: boolean
}

const PAD = 12
const pad = (n: number) => String(n).padStart(PAD, '0')
const USED_EVERY_MS = 30_000
/** The parts kept as one value each (parts.ts `store.value`): under their key, written when their text changed. */
const VALUE_PARTS = WORLD_PARTS.flatMap((part) =>
  'value' in part.store ? [{ part, key: part.store.value, version: part.store.version }] : [],
)

/**
 * A record's key: `r:<collection>:<id>`; notifications' `n:<id>`, as stored before they were a
 * table like the others, so a world stored then loads.
 */
export const recordKey = (collection: string, id: string | number) =>
  collection === 'notifications' ? `n:${id}` : `r:${collection}:${id}`

/** The collection and id a record's key names, or undefined for a key of something else. */
export function keyRecord(key: string): { collection: string; id: string } | undefined {
  if (key.startsWith('n:')) return { collection: 'notifications', id: key.slice(2) }
  if (!key.startsWith('r:')) return undefined
  const at = key.indexOf(':', 2)
  return { collection: key.slice(2, at), id: key.slice(at + 1) }
}
/**
 * Records, sessions and log entries are stored as values, the `k:*` parts as JSON text (they
 * hold Maps and Sets, and are compared as text to see whether they changed). Values as JSON
 * text, as stores before these kept them, are read too.
 */
export const stored = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)

export class PersistedSandbox {
  #pending = new Map<string, unknown>()
  #wipe = false
  /** Every key the backend holds, so a reset can delete them all. */
  #keys = new Set<string>()
  #seqs = new Map<string, number>()
  #small = new Map<string, string>()
  /** The newest journal entry stored, the first current one (`k:jfirst`), and keys of entries stored as before slots. */
  #journalSaved = 0
  #journalFirst = NaN
  #journalStale: string[] = []
  #outbox: number[] = []
  /** Token to what was stored of it, and its place (order survives a reload). */
  #sessions = new Map<string, { mark: string; o: number }>()
  #sessionOrder = 0
  #clock = { offset: NaN, frozen: false }
  #usedAt = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  #closed = false
  /** Set while stored parts are put back: the reset that may take is not a change to store. */
  #loading = false
  #unwatch: () => void
  readonly meta: StoredMeta

  private constructor(
    readonly sandbox: Sandbox,
    private readonly backend: StateBackend,
    private readonly options: PersistOptions,
    meta: StoredMeta,
  ) {
    this.meta = meta
    this.#unwatch = sandbox.watch((change) => {
      // A collection replaced in place (--watch) is stored whole, as after a restore.
      if (
        (change === 'reset' || change === 'restore' || change === 'fixtures' || change === 'replay') &&
        !this.#loading
      )
        this.#replaced(change === 'fixtures' || change === 'replay')
    })
  }

  /** The sandbox as the backend holds it; an empty backend (or a refused state) stores the sandbox as it is. */
  static async open(sandbox: Sandbox, backend: StateBackend, options: PersistOptions = {}): Promise<PersistedSandbox> {
    const all = await backend.list()
    const saved = all.get('meta') as StoredMeta | undefined
    const usable = saved && (options.accepts?.(saved) ?? true)
    const fresh: StoredMeta = { ...options.meta, seed: sandbox.seed, base: sandbox.recordsBase, seq: 0 }
    const persisted = new PersistedSandbox(sandbox, backend, options, usable ? { ...saved, ...options.meta } : fresh)
    for (const key of all.keys()) persisted.#keys.add(key)
    if (usable) {
      persisted.#loading = true
      try {
        await persisted.#load(all)
      } finally {
        persisted.#loading = false
      }
    } else {
      persisted.#replaced()
    }
    // A whole store starts with every record: left to its first flush (the file's save on exit),
    // so a start at 100k notifications does not copy them all before it listens.
    if (!options.whole || usable) await persisted.flush()
    return persisted
  }

  /** Real time of the sandbox's last stored use (an idle sandbox is dropped by its runtime). */
  get lastUsed(): number {
    return this.#usedAt
  }

  /** Stops storing: a dropped sandbox writes nothing more. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#unwatch()
  }

  /** After a read: what it changed is stored with the next batch, not now. */
  later(): void {
    if (this.#timer || this.#closed) return
    this.#timer = setTimeout(() => void this.flush().catch(() => undefined), this.options.readBatchMs ?? 1000)
  }

  /**
   * After an answer to a `method` request: a read's changes (journal, sliding sessions) wait for
   * the batch; a write's are stored now, and the promise says when the backend has them.
   */
  answered(method: string): Promise<void> {
    if (method === 'GET' || method === 'HEAD') {
      this.later()
      return Promise.resolve()
    }
    if (!this.options.journalInBatches) return this.flush()
    const stored = this.flush(false)
    this.later()
    return stored
  }

  /**
   * Stores every change since the last flush (the journal's too, unless `journal` is false), in
   * one batch of puts and deletes issued at once; resolves once the backend has them. A write's
   * answer waits for it.
   */
  flush(journal = true): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#closed) return Promise.resolve()
    const { sandbox } = this
    const puts = this.#pending
    this.#pending = new Map()
    const deletes: string[] = []
    const wipe = this.#wipe
    if (wipe) {
      this.#wipe = false
      if (this.meta.base === null) this.#allRecords(puts)
    }
    this.#smallChanges(puts)
    if (journal) this.#journalChanges(puts, deletes)
    this.#logChanges('o:', sandbox.outbox.list(), outboxNumber, this.#outbox, puts, deletes)
    this.#sessionChanges(puts, deletes)
    const now = Date.now()
    if (puts.size || deletes.length || wipe || now - this.#usedAt > USED_EVERY_MS) {
      this.#usedAt = now
      this.meta.seed = sandbox.seed
      puts.set('meta', { ...this.meta })
      puts.set('k:used', JSON.stringify(now))
    }
    if (wipe) for (const key of this.#keys) if (!puts.has(key)) deletes.push(key)
    for (const key of deletes) this.#keys.delete(key)
    for (const key of puts.keys()) this.#keys.add(key)
    // Issued now, in order, and not awaited one by one: the backend keeps their order, and
    // other requests go on meanwhile (a Durable Object's output gate holds its answers).
    const ops: Promise<unknown>[] = []
    if (deletes.length) ops.push(this.backend.delete(deletes))
    if (puts.size) ops.push(this.backend.put(puts))
    return Promise.all(ops).then(() => undefined)
  }

  /**
   * A reset or a restore replaced the records: everything is stored again from here. After a
   * replaced collection (`fixtures`) the world is no longer its seed plus changes: every record is stored.
   */
  #replaced(whole = false): void {
    const { sandbox } = this
    this.#wipe = true
    this.#pending.clear()
    this.#seqs.clear()
    this.#small.clear()
    this.#versions.clear()
    this.#journalSaved = 0
    this.#journalFirst = NaN
    this.#journalStale = []
    this.#outbox = []
    this.#sessions.clear()
    this.#sessionOrder = 0
    this.#clock = { offset: NaN, frozen: false }
    this.meta.seq = 0
    this.meta.base = this.options.whole || whole ? null : sandbox.recordsBase
    this.#observe(sandbox.world)
  }

  async #load(all: Map<string, unknown>): Promise<void> {
    const { sandbox, meta } = this
    // Copies: a backend in memory hands back the very values it was given.
    const copy = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : structuredClone(value))
    const records = [...all].flatMap(([key, value]) => {
      const at = keyRecord(key)
      return at ? [{ key, ...at, ...(copy(value) as { s: number; v: unknown }) }] : []
    })
    records.sort((a, b) => a.s - b.s)
    if (meta.base === null) {
      const rows: Record<string, unknown[]> = {}
      for (const [name] of sandbox.world.collections()) rows[name] = []
      for (const r of records) if (r.v !== null) rows[r.collection]?.push(r.v)
      await sandbox.resume({ ...(rows as WorldRows), seed: meta.seed })
    } else {
      if (meta.base !== sandbox.seed || sandbox.recordsBase !== meta.base) await sandbox.reset(meta.base)
      for (const r of records) await applyRecord(sandbox.world, r)
    }
    for (const r of records) this.#seqs.set(r.key, r.s)
    const values = <T>(prefix: string) => [...all].filter(([k]) => k.startsWith(prefix)).map(([, v]) => copy(v) as T)
    const small = (key: string) => (all.has(key) ? JSON.parse(all.get(key) as string) : undefined)
    const clock = small('k:clock') as { now: number; frozen: boolean; real: number } | undefined
    const journal = this.#loadJournal(all, copy)
    const kept: Record<string, unknown> = {}
    for (const { part, key } of VALUE_PARTS) if (all.has(key)) kept[part.key] = small(key)
    await sandbox.resume({
      ...kept,
      sessions: values<{ o: number; s: Session }>('t:')
        .sort((a, b) => a.o - b.o)
        .map((x) => x.s),
      journal,
      // In the order they were made: a backend lists keys in its own order.
      outbox: values<OutboxEntry>('o:').sort((a, b) => outboxNumber(a) - outboxNumber(b)),
      // The clock ran on while the runtime was away: it stays relative to real time.
      ...(clock && {
        clock: {
          now: new Date(clock.frozen ? clock.now : clock.now + (Date.now() - clock.real)).toISOString(),
          frozen: clock.frozen,
        },
      }),
    })
    this.#usedAt = (small('k:used') as number | undefined) ?? 0
    // What the backend holds now, so the next flush writes only the difference.
    this.#observe(sandbox.world)
    for (const { key } of VALUE_PARTS) if (all.has(key)) this.#small.set(key, all.get(key) as string)
    // Entries stored as before slots are stored again in theirs (and the old keys deleted).
    this.#journalSaved = this.#journalStale.length ? 0 : (journal.at(-1)?.id ?? 0)
    this.#journalFirst = small('k:jfirst') ?? NaN
    this.#outbox = sandbox.outbox.list().map(outboxNumber)
    this.#sessions = new Map(sandbox.sessions.all().map((s, o) => [s.token, { mark: sessionMark(s), o }]))
    this.#sessionOrder = this.#sessions.size
    this.#clock = clockMark(sandbox.clock)
  }

  #observe(world: World): void {
    for (const [name, table] of world.collections()) {
      table.onChange = (id, row, inserted) => {
        const key = recordKey(name, id)
        // A row inserted after the base goes to the end on reload; a base row is changed in place.
        let s = this.#seqs.get(key)
        if (inserted || s === undefined) s = inserted ? ++this.meta.seq : 0
        this.#seqs.set(key, s)
        this.#pending.set(key, { s, v: row ?? null })
      }
    }
  }

  /** Every record, for a world no seed reproduces (a snapshot restore) or a whole store. */
  #allRecords(puts: Map<string, unknown>): void {
    for (const [name, table] of this.sandbox.world.collections()) {
      for (const row of table.rows()) {
        const key = recordKey(name, row.id)
        const s = ++this.meta.seq
        this.#seqs.set(key, s)
        puts.set(key, { s, v: row })
      }
    }
  }

  /** The version each versioned part had when last written (a hundred overrides are tens of KB of JSON). */
  #versions = new Map<string, number>()

  #smallChanges(puts: Map<string, unknown>): void {
    const { sandbox } = this
    for (const { part, key, version } of VALUE_PARTS) {
      if (version) {
        const v = version(sandbox)
        if (this.#versions.get(key) === v) continue
        this.#versions.set(key, v)
      }
      const json = JSON.stringify(part.read(sandbox)[part.key])
      if (this.#small.get(key) !== json) puts.set(key, json)
      this.#small.set(key, json)
    }
    const clock = clockMark(sandbox.clock)
    if (clock.frozen !== this.#clock.frozen || !(Math.abs(clock.offset - this.#clock.offset) <= 2)) {
      puts.set('k:clock', JSON.stringify({ now: sandbox.clock.now(), frozen: clock.frozen, real: Date.now() }))
    }
    this.#clock = clock
  }

  /** The current stored journal entries, oldest first; keys of any not in their slot are noted to delete. */
  #loadJournal(all: Map<string, unknown>, copy: (value: unknown) => unknown): JournalEntry[] {
    const first = all.has('k:jfirst') ? (JSON.parse(all.get('k:jfirst') as string) as number) : -Infinity
    const { capacity } = this.sandbox.journal
    const stored = [...all].filter(([k]) => k.startsWith('j:')).map(([key, v]) => ({ key, e: copy(v) as JournalEntry }))
    stored.sort((a, b) => a.e.id - b.e.id)
    this.#journalStale = stored.filter((x) => x.key !== journalKey(x.e.id, capacity)).map((x) => x.key)
    return stored
      .filter((x) => x.e.id >= first)
      .slice(-capacity)
      .map((x) => x.e)
  }

  /** New journal entries into their slots; the first current id when it moved. */
  #journalChanges(puts: Map<string, unknown>, deletes: string[]): void {
    const { journal } = this.sandbox
    deletes.push(...this.#journalStale)
    this.#journalStale = []
    const first = journal.firstId
    if (first !== this.#journalFirst) puts.set('k:jfirst', JSON.stringify(first))
    this.#journalFirst = first
    for (const e of journal.since(Math.max(this.#journalSaved, first - 1))) {
      puts.set(journalKey(e.id, journal.capacity), e)
      this.#journalSaved = e.id
    }
  }

  /**
   * The outbox: entries join at the end and leave from the front (or all at once); a rewind
   * takes the newest off the end, and may put them back.
   */
  #logChanges<E>(
    prefix: string,
    list: E[],
    number: (e: E) => number,
    saved: number[],
    puts: Map<string, unknown>,
    deletes: string[],
  ): void {
    const first = list.length ? number(list[0]) : Infinity
    let drop = 0
    while (drop < saved.length && saved[drop] < first) deletes.push(prefix + pad(saved[drop++]))
    saved.splice(0, drop)
    const newest = list.length ? number(list[list.length - 1]) : -Infinity
    while (saved.length && saved[saved.length - 1] > newest) deletes.push(prefix + pad(saved.pop()!))
    const last = saved.length ? saved[saved.length - 1] : -Infinity
    for (let i = list.length - 1; i >= 0 && number(list[i]) > last; i--) {
      puts.set(prefix + pad(number(list[i])), list[i])
      saved.push(number(list[i]))
    }
    saved.sort((a, b) => a - b)
  }

  #sessionChanges(puts: Map<string, unknown>, deletes: string[]): void {
    const seen = new Set<string>()
    for (const s of this.sandbox.sessions.all()) {
      seen.add(s.token)
      const mark = sessionMark(s)
      const saved = this.#sessions.get(s.token)
      if (saved?.mark === mark) continue
      const o = saved?.o ?? this.#sessionOrder++
      this.#sessions.set(s.token, { mark, o })
      puts.set(`t:${s.token}`, { o, s })
    }
    for (const token of this.#sessions.keys()) {
      if (seen.has(token)) continue
      this.#sessions.delete(token)
      deletes.push(`t:${token}`)
    }
  }
}

const journalKey = (id: number, capacity: number) => `j:${pad(id % capacity)}`
const sessionMark = (s: Session) => `${s.lastSeenAt}|${s.expiresAt}|${s.ttlMs}`
const clockMark = (clock: Clock) => ({
  frozen: clock.frozen,
  offset: clock.frozen ? clock.now() : clock.now() - Date.now(),
})

/** One stored record onto a world derived from the base seed. */
async function applyRecord(
  world: World,
  { collection, id, s, v }: { collection: string; id: string; s: number; v: unknown },
): Promise<void> {
  const table = world.table(collection)
  if (!table) return
  if (v === null) {
    await table.remove(id)
  } else if (s > 0 || !table.get(id)) {
    // Inserted after the base (perhaps over a removed base row): at the end, as it was.
    await table.remove(id)
    await table.insert(v as AnyRow)
  } else {
    await table.update(id, (draft) => {
      const row = v as Record<string, unknown>
      for (const k of Object.keys(draft)) if (!(k in row)) delete draft[k]
      Object.assign(draft, row)
    })
  }
}
