import { Collection } from '@msw/data'
import type { z } from 'zod'
import type { RecordCollection } from './collection.js'

type Row = { id: string | number }

/** What a table holds: shared by a table and its forks until one of them writes. */
class Rows {
  readonly byId = new Map<string, Row>()
  /** Insertion order of each id, so that indexed lists keep the library's order. */
  readonly order = new Map<string, number>()
  next = 0
  /**
   * Field → value → rows in insertion order; built on first use, kept by every write. Building
   * one on shared rows is safe: every side sharing them sees the same rows.
   */
  readonly indexes = new Map<PropertyKey, Map<unknown, Row[]>>()
  readonly collection: Collection<z.ZodType<Row>>
  /** Set while loading rows that already passed the schema (seeded rows, a copy on write). */
  trusted = false

  constructor(schema: z.ZodType<Row>) {
    const standard = schema['~standard']
    // The schema as the library sees it: the zod schema, skipped only for trusted loads. The
    // flag is these rows' own: a copy being made trusts no write to the rows it copies.
    const gate = { '~standard': { ...standard, validate: (value: unknown) => (this.trusted ? { value } : standard.validate(value)) } }
    this.collection = new Collection({ schema: gate as unknown as z.ZodType<Row> })
  }
}

/**
 * One entity collection: an @msw/data Collection (the schema-checked record store) plus the
 * indexes the library lacks: by id (its `findFirst` scans every record) and by a foreign key
 * (`by`). Records handed out are the library's; change them only through `update`.
 *
 * A fork shares the rows, the collection and the indexes with its parent; the first write on
 * either side copies them for that side. So a new sandbox holds no copy of the seeded records
 * until it writes, and then only of the collections it wrote (`npm run bench -- --only memory`:
 * the library's record costs about a kilobyte, most of a sandbox's size before).
 *
 * Joins (message→thread, history→visit, DTE→invoice) use `by`, not the library's relations:
 * a relation resolves by scanning the foreign collection (relation.ts `resolve` is a
 * `findMany` with a `where`), and adds a property to the record, which the spec's shapes do
 * not have. Measured (bench/joins.mjs, default size and 100k): a thread's messages 25–28 µs
 * with a predicate `where`, 48–53 µs with the object form, 0.1 µs through `by`; a visit's
 * history 16–29, 73–87 and under 2.5 µs.
 */
export class Table<S extends z.ZodType<Row>> implements RecordCollection<z.infer<S>> {
  /** Created on first use: a fork gets its parent's instead. */
  #data?: Rows
  /** Whether this side may change `#data` in place (false once shared with a fork). */
  #owned = true
  /** Told of every insert, update and removal (the Durable Object's storage follows it). */
  onChange?: (id: string, row: z.infer<S> | undefined, inserted: boolean) => void

  constructor(
    readonly name: string,
    readonly schema: S,
  ) {}

  /** The library's collection holding the rows (shared with a fork until either side writes). */
  get collection(): Collection<S> {
    return this.#rows().collection as unknown as Collection<S>
  }

  /** A table with the same rows whose writes this one never sees, nor this one the fork's. */
  fork(): Table<S> {
    const copy = new Table(this.name, this.schema)
    copy.#data = this.#rows()
    copy.#owned = false
    this.#owned = false
    return copy
  }

  /** Whether this table and `other` hold the same rows, shared (a fork neither side wrote since). */
  shares(other: RecordCollection<unknown>): boolean {
    return other instanceof Table && this.#data !== undefined && this.#data === other.#data
  }

  get size(): number {
    return this.#rows().byId.size
  }

  get(id: string | number): z.infer<S> | undefined {
    return this.#rows().byId.get(String(id)) as z.infer<S> | undefined
  }

  all(): z.infer<S>[] {
    return this.#rows().collection.all() as z.infer<S>[]
  }

  where(predicate: (row: z.infer<S>) => boolean): z.infer<S>[] {
    return this.#rows().collection.findMany((q) => q.where(predicate as never)) as z.infer<S>[]
  }

  /** Rows whose `field` equals `value`, in insertion order (a copy: callers may sort it). */
  by<K extends keyof z.infer<S>>(field: K, value: z.infer<S>[K]): z.infer<S>[] {
    const data = this.#rows()
    let index = data.indexes.get(field)
    if (!index) {
      index = new Map()
      for (const row of data.collection.all()) place(data, index, row[field as keyof Row], row)
      data.indexes.set(field, index)
    }
    return (index.get(value)?.slice() ?? []) as z.infer<S>[]
  }

  async insert(values: z.input<S>): Promise<z.infer<S>> {
    const data = await this.#own()
    const row = await add(data, values)
    for (const [field, index] of data.indexes) place(data, index, row[field as keyof Row], row)
    this.onChange?.(String(row.id), row as z.infer<S>, true)
    return row as z.infer<S>
  }

  async update(id: string | number, change: (draft: z.infer<S>) => void): Promise<z.infer<S> | undefined> {
    if (!this.get(id)) return undefined
    const data = await this.#own()
    const current = data.byId.get(String(id))
    if (!current) return undefined
    // The library changes the record in place: note the indexed values before.
    const before = [...data.indexes.keys()].map((field) => current[field as keyof Row])
    const next = (await data.collection.update(current as never, { data: change as never })) as Row
    data.byId.set(String(id), next)
    let i = 0
    for (const [field, index] of data.indexes) {
      unplace(index, before[i++], current)
      unplace(index, before[i - 1], next)
      place(data, index, next[field as keyof Row], next)
    }
    this.onChange?.(String(id), next as z.infer<S>, false)
    return next as z.infer<S>
  }

  async remove(id: string | number): Promise<z.infer<S> | undefined> {
    if (!this.get(id)) return undefined
    const data = await this.#own()
    const current = data.byId.get(String(id))
    if (!current) return undefined
    data.collection.delete(current as never)
    for (const [field, index] of data.indexes) unplace(index, current[field as keyof Row], current)
    data.byId.delete(String(id))
    data.order.delete(String(id))
    this.onChange?.(String(id), undefined, false)
    return current as z.infer<S>
  }

  /** Plain JSON-safe copies, in insertion order: what snapshots and forks carry. */
  rows(): z.infer<S>[] {
    return this.all().map((r) => structuredClone({ ...r }))
  }

  /**
   * Replaces every row. `trusted` rows came out of this schema already (seeded rows): they are
   * not checked again. The library stores its own copy of each row either way.
   */
  async load(rows: readonly z.input<S>[], trusted = false): Promise<void> {
    const data = this.#empty()
    data.trusted = trusted
    for (const row of rows) {
      const added = await add(data, row)
      this.onChange?.(String(added.id), added as z.infer<S>, true)
    }
    data.trusted = false
    this.#data = data
    this.#owned = true
  }

  #rows(): Rows {
    return (this.#data ??= this.#empty())
  }

  #empty(): Rows {
    return new Rows(this.schema)
  }

  /** The rows this side may change: its own, or a copy of the shared ones (copy on first write). */
  async #own(): Promise<Rows> {
    if (this.#owned) return this.#rows()
    const shared = this.#rows()
    const data = this.#empty()
    data.trusted = true
    for (const row of shared.collection.all()) await add(data, row)
    data.trusted = false
    data.next = shared.next
    for (const id of data.byId.keys()) data.order.set(id, shared.order.get(id)!)
    // Another write may have copied while this one waited.
    if (!this.#owned) {
      this.#data = data
      this.#owned = true
    }
    return this.#data!
  }
}

/** Adds a row to the library's collection and the by-id and order maps (not to indexes). */
async function add(data: Rows, values: unknown): Promise<Row> {
  const row = (await data.collection.create(values as never)) as Row
  data.byId.set(String(row.id), row)
  data.order.set(String(row.id), data.next++)
  return row
}

function place(data: Rows, index: Map<unknown, Row[]>, value: unknown, row: Row) {
  let list = index.get(value)
  if (!list) index.set(value, (list = []))
  const at = data.order.get(String(row.id)) ?? Infinity
  let i = list.length
  while (i > 0 && (data.order.get(String(list[i - 1].id)) ?? Infinity) > at) i--
  list.splice(i, 0, row)
}

function unplace<R>(index: Map<unknown, R[]>, value: unknown, row: R) {
  const list = index.get(value)
  const i = list?.indexOf(row) ?? -1
  if (i >= 0) list!.splice(i, 1)
}
