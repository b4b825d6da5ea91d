import type { z } from 'zod'
import { SessionStore, type Session } from '../../core/auth/sessions.js'
import { Clock } from '../../core/sandbox/clock.js'
import type { JournalEntry } from '../../core/sandbox/journal.js'
import type { OutboxEntry } from '../../core/sandbox/outbox.js'
import { seededRandom } from '../../core/sandbox/random.js'
import type { Sandbox } from '../../core/sandbox/sandbox.js'
import type { TableName } from '../../core/store/collections.js'
import { World, toEntry, type WorldRows } from '../../core/store/world.js'
import type { Table } from '../../core/store/table.js'
import type { ObjectStorage } from './env.js'

/**
 * A sandbox kept in its Durable Object's storage, one small value per thing that changes, so
 * no value nears the 2 MB limit and a write costs what it changed:
 * - `meta`: id, seededAt, seed and `base` (the seed the records derive from, or null when a
 *   snapshot restore replaced them and every record is stored);
 * - `r:<table>:<id>` and `n:<id>`: a record written since the base (`{s, v}`: insertion
 *   order and the row, null once removed), from the tables' and notifications' change feed;
 * - `j:`, `o:`, `t:`: one journal entry, outbox entry, session each;
 * - `k:*`: ids, scenarios, per-scenario counters, draws of the seeded generator, the token
 *   signing key, clock (kept relative to real time), last use.
 */
export interface Meta {
  id: string
  seededAt: number
  createdAt: number
  seed: number
  base: number | null
  seq: number
}

interface StoredRecord {
  s: number
  v: unknown
}

const PAD = 12
const pad = (n: number) => String(n).padStart(PAD, '0')
const outboxNumber = (e: OutboxEntry) => Number(/^out_(\d+)$/.exec(e.id)?.[1] ?? 0)
/** Storage takes at most 128 keys per call. */
const BATCH = 128
const USED_EVERY_MS = 30_000

/** Maps and Sets (scenario bookkeeping) as JSON. */
const encode = (_: string, v: unknown) => (v instanceof Map ? { $map: [...v] } : v instanceof Set ? { $set: [...v] } : v)
const decode = (_: string, v: unknown) => {
  if (v && typeof v === 'object' && '$map' in v) return new Map((v as { $map: [unknown, unknown][] }).$map)
  if (v && typeof v === 'object' && '$set' in v) return new Set((v as { $set: unknown[] }).$set)
  return v
}

export class StoredSandbox {
  /** Set once the sandbox is dropped: nothing more is written for it. */
  dropped = false
  #writes: Promise<void> = Promise.resolve()
  #pending = new Map<string, unknown>()
  #seqs = new Map<string, number>()
  #world!: World
  #fromSeed: World | undefined
  #small = new Map<string, string>()
  #journal: number[] = []
  #outbox: number[] = []
  /** Token to what was stored of it, and its place in the store (order survives a reload). */
  #sessions = new Map<string, { mark: string; o: number }>()
  #sessionOrder = 0
  #clock = { offset: NaN, frozen: false }
  #usedAt = 0
  /** The sandbox's seeded generator, counted: a reload draws as many to go on where it was (DTE TrackIDs never repeat). */
  #random: (() => number) | undefined
  #draws = 0

  private constructor(
    private readonly storage: ObjectStorage,
    readonly sandbox: Sandbox,
    readonly meta: Meta,
  ) {
    // A reset re-derives the records from a seed: only the seed is stored, not the rows.
    const reset = sandbox.reset
    sandbox.reset = async (seed) => {
      await reset.call(sandbox, seed)
      this.#fromSeed = sandbox.world
    }
  }

  /** The sandbox as storage holds it; an empty storage keeps the freshly seeded one and stores it. */
  static async open(storage: ObjectStorage, sandbox: Sandbox, meta: Omit<Meta, 'seed' | 'base' | 'seq'>): Promise<StoredSandbox> {
    const all = await storage.list()
    const saved = all.get('meta') as Meta | undefined
    const stored = new StoredSandbox(storage, sandbox, saved ?? { ...meta, seed: sandbox.seed, base: sandbox.seed, seq: 0 })
    if (!saved) {
      stored.#fromSeed = sandbox.world
      await stored.flush()
      return stored
    }
    await stored.#load(all)
    return stored
  }

  get lastUsed(): number {
    return this.#usedAt
  }

  async #load(all: Map<string, unknown>): Promise<void> {
    const { sandbox, meta } = this
    const records = [...all].filter(([k]) => k.startsWith('r:') || k.startsWith('n:')).map(([key, json]) => ({ key, ...(JSON.parse(json as string) as StoredRecord) }))
    records.sort((a, b) => a.s - b.s)
    if (meta.base === null) {
      const rows: Record<string, unknown[]> = { notifications: [] }
      for (const r of records) {
        const [kind, table] = r.key.split(':')
        if (r.v === null) continue
        if (kind === 'n') rows.notifications.push(r.v)
        else (rows[table] ??= []).push(r.v)
      }
      sandbox.world = await World.fromRows(rows as WorldRows, undefined, true)
      sandbox.seed = meta.seed
      sandbox.random = seededRandom(meta.seed)
    } else {
      if (meta.base !== sandbox.seed) await sandbox.reset(meta.base)
      for (const r of records) await applyRecord(sandbox.world, r.key, r.s, r.v)
      this.#fromSeed = sandbox.world
    }
    for (const r of records) this.#seqs.set(r.key, r.s)
    const values = <T>(prefix: string) => [...all].filter(([k]) => k.startsWith(prefix)).map(([, v]) => JSON.parse(v as string) as T)
    const sessions = values<{ o: number; s: Session }>('t:').sort((a, b) => a.o - b.o)
    sandbox.sessions = new SessionStore(sessions.map((x) => x.s))
    sandbox.journal.load(values<JournalEntry>('j:'))
    sandbox.outbox.load(values<OutboxEntry>('o:'))
    const small = (key: string) => (all.has(key) ? JSON.parse(all.get(key) as string, decode) : undefined)
    sandbox.ids.value = small('k:ids') ?? sandbox.ids.value
    sandbox.active = small('k:scenarios') ?? []
    sandbox.scenarioState = small('k:state') ?? new Map()
    const clock = small('k:clock') as { now: number; frozen: boolean; real: number } | undefined
    // The clock ran on while the object was away: keep it relative to real time.
    if (clock) sandbox.clock = new Clock(clock.frozen ? clock.now : clock.now + (Date.now() - clock.real), Date.now, clock.frozen)
    this.#usedAt = (small('k:used') as number | undefined) ?? 0
    this.#countDraws(small('k:draws') ?? 0)
    // Tokens signed before the reload stay valid.
    const key = small('k:key') as string | undefined
    if (key) sandbox.setKey(key)
    this.#track(all)
  }

  /** What storage holds now, so the next flush writes only the difference. */
  #track(all: Map<string, unknown>): void {
    this.#world = this.sandbox.world
    this.#observe(this.sandbox.world)
    for (const key of ['k:ids', 'k:scenarios', 'k:state', 'k:draws', 'k:key']) if (all.has(key)) this.#small.set(key, all.get(key) as string)
    this.#journal = this.sandbox.journal.list().map((e) => e.id)
    this.#outbox = this.sandbox.outbox.list().map(outboxNumber)
    this.#sessions = new Map(this.sandbox.sessions.all().map((s, o) => [s.token, { mark: sessionMark(s), o }]))
    this.#sessionOrder = this.#sessions.size
    this.#clock = clockMark(this.sandbox.clock)
  }

  #observe(world: World): void {
    for (const [name, table] of Object.entries(world.tables) as [TableName, Table<z.ZodType<{ id: string | number }>>][]) {
      table.onChange = (id, row, inserted) => {
        const key = `r:${name}:${id}`
        // A row inserted after the base goes to the end on reload; a base row is changed in place.
        let s = this.#seqs.get(key)
        if (inserted || s === undefined) s = inserted ? ++this.meta.seq : 0
        this.#seqs.set(key, s)
        this.#pending.set(key, JSON.stringify({ s, v: row ?? null }))
      }
    }
    world.notifications.onChange = (e) => {
      this.#pending.set(`n:${e.n.id}`, JSON.stringify({ s: 0, v: { ...e.n, clientId: e.clientId } }))
    }
  }

  /**
   * Writes what changed since the last flush; resolves once storage has it. Called after every
   * request, before its answer is returned.
   */
  flush(): Promise<void> {
    if (this.dropped) return this.#writes
    const { sandbox } = this
    const puts = this.#pending
    this.#pending = new Map()
    let wipe = false
    if (sandbox.world !== this.#world) {
      // A reset or a restore replaced the records: start the storage over.
      wipe = true
      puts.clear()
      this.#seqs.clear()
      this.#small.clear()
      this.#journal = []
      this.#outbox = []
      this.#sessions.clear()
      this.#sessionOrder = 0
      this.#clock = { offset: NaN, frozen: false }
      this.meta.seq = 0
      this.meta.base = sandbox.world === this.#fromSeed ? sandbox.seed : null
      if (this.meta.base === null) this.#allRecords(puts)
      this.#world = sandbox.world
      this.#observe(sandbox.world)
    }
    const deletes: string[] = []
    this.#smallChanges(puts)
    this.#logChanges('j:', sandbox.journal.list(), (e) => e.id, this.#journal, puts, deletes)
    this.#logChanges('o:', sandbox.outbox.list(), outboxNumber, this.#outbox, puts, deletes)
    this.#sessionChanges(puts, deletes)
    const now = Date.now()
    if (puts.size || deletes.length || wipe || now - this.#usedAt > USED_EVERY_MS) {
      this.#usedAt = now
      this.meta.seed = sandbox.seed
      puts.set('meta', { ...this.meta })
      puts.set('k:used', JSON.stringify(now))
    }
    // Issued now, in order; not awaited by the request: the object's output gate holds its
    // answer until storage confirms them (and a failed write restarts the object instead).
    // Awaiting each write here let no other request in meanwhile: a third of the throughput.
    const ops: Promise<unknown>[] = []
    if (wipe) ops.push(this.storage.deleteAll())
    const entries = [...puts]
    for (let i = 0; i < entries.length; i += BATCH) ops.push(this.storage.put(Object.fromEntries(entries.slice(i, i + BATCH))))
    for (let i = 0; i < deletes.length; i += BATCH) ops.push(this.storage.delete(deletes.slice(i, i + BATCH)))
    this.#writes = Promise.all(ops).then(() => undefined)
    return this.#writes
  }

  /** Every record, for a world no seed reproduces (a snapshot restore). */
  #allRecords(puts: Map<string, unknown>): void {
    for (const [name, table] of Object.entries(this.sandbox.world.tables)) {
      for (const row of (table as Table<z.ZodType<{ id: string | number }>>).rows()) {
        const key = `r:${name}:${row.id}`
        const s = ++this.meta.seq
        this.#seqs.set(key, s)
        puts.set(key, JSON.stringify({ s, v: row }))
      }
    }
    for (const e of this.sandbox.world.notifications.entries()) puts.set(`n:${e.n.id}`, JSON.stringify({ s: 0, v: { ...e.n, clientId: e.clientId } }))
  }

  /** Counts the draws of the sandbox's current generator, after drawing `skip` (a reload). */
  #countDraws(skip: number): void {
    const next = this.sandbox.random
    for (let i = 0; i < skip; i++) next()
    this.#draws = skip
    this.sandbox.random = this.#random = () => {
      this.#draws++
      return next()
    }
  }

  #smallChanges(puts: Map<string, unknown>): void {
    const { sandbox } = this
    if (sandbox.random !== this.#random) this.#countDraws(0)
    const small: [string, unknown][] = [['k:ids', sandbox.ids.value], ['k:scenarios', sandbox.active], ['k:state', sandbox.scenarioState], ['k:draws', this.#draws], ['k:key', hex(sandbox.signingKey)]]
    for (const [key, value] of small) {
      const json = JSON.stringify(value, encode)
      if (this.#small.get(key) !== json) puts.set(key, json)
      this.#small.set(key, json)
    }
    const clock = clockMark(sandbox.clock)
    if (clock.frozen !== this.#clock.frozen || !(Math.abs(clock.offset - this.#clock.offset) <= 2)) {
      const now = sandbox.clock.now()
      puts.set('k:clock', JSON.stringify({ now, frozen: clock.frozen, real: Date.now() }))
    }
    this.#clock = clock
  }

  /** Journal and outbox: entries only ever join at the end and leave from the front (or all at once). */
  #logChanges<E>(prefix: string, list: E[], number: (e: E) => number, saved: number[], puts: Map<string, unknown>, deletes: string[]): void {
    const first = list.length ? number(list[0]) : Infinity
    let drop = 0
    while (drop < saved.length && saved[drop] < first) deletes.push(prefix + pad(saved[drop++]))
    saved.splice(0, drop)
    const last = saved.length ? saved[saved.length - 1] : -Infinity
    for (let i = list.length - 1; i >= 0 && number(list[i]) > last; i--) {
      puts.set(prefix + pad(number(list[i])), JSON.stringify(list[i]))
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
      puts.set(`t:${s.token}`, JSON.stringify({ o, s }))
    }
    for (const token of this.#sessions.keys()) {
      if (seen.has(token)) continue
      this.#sessions.delete(token)
      deletes.push(`t:${token}`)
    }
  }
}

/** The signing key as the sandbox takes it back (`setKey`): hex. */
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const sessionMark = (s: Session) => `${s.lastSeenAt}|${s.expiresAt}|${s.ttlMs}`
const clockMark = (clock: Clock) => ({ frozen: clock.frozen, offset: clock.frozen ? clock.now() : clock.now() - Date.now() })

/** One stored record onto a world derived from the base seed. */
async function applyRecord(world: World, key: string, s: number, v: unknown): Promise<void> {
  if (key.startsWith('n:')) {
    const entry = toEntry(v as WorldRows['notifications'][number])
    if (world.notifications.get(entry.n.id)) world.notifications.replace(entry)
    else world.notifications.add(entry)
    return
  }
  const name = key.slice(2, key.indexOf(':', 2)) as TableName
  const id = key.slice(key.indexOf(':', 2) + 1)
  const table = world.tables[name] as unknown as Table<z.ZodType<{ id: string | number }>>
  if (!table) return
  if (v === null) {
    table.remove(id)
  } else if (s > 0) {
    // Inserted after the base (perhaps over a removed base row): at the end, as it was.
    table.remove(id)
    await table.insert(v as { id: string })
  } else {
    await table.update(id, (draft) => {
      const row = v as Record<string, unknown>
      for (const k of Object.keys(draft)) if (!(k in row)) delete (draft as Record<string, unknown>)[k]
      Object.assign(draft, row)
    })
  }
}
