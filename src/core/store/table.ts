import { Collection } from '@msw/data'
import type { z } from 'zod'
import type { RecordCollection } from './collection.js'
import type { WriteRecorder } from './changes.js'

type Row = { id: string | number }

/** What a table holds: shared by a table and its forks until one of them writes. */
class Rows {
  readonly byId = new Map<string, Row>()
  /**
   * Field → value → rows in the collection's order; built on first use, kept by inserts, dropped
   * by updates and removals. Building one on shared rows is safe: every side sees the same rows.
   */
  readonly indexes = new Map<PropertyKey, Map<unknown, Row[]>>()
  readonly collection: Collection<z.ZodType<Row>>
  /** Set while loading rows that already passed the schema (seeded rows, a copy on write). */
  trusted = false

  constructor(schema: z.ZodType<Row>) {
    const standard = schema['~standard']
    // The schema as the library sees it: the zod schema, skipped only for trusted loads. The
    // flag is these rows' own: a copy being made trusts no write to the rows it copies.
    const gate = {
      '~standard': { ...standard, validate: (value: unknown) => (this.trusted ? { value } : standard.validate(value)) },
    }
    this.collection = new Collection({ schema: gate as unknown as z.ZodType<Row> })
  }

  /** Adds a row at the end: to the collection, by id, and to every index built. */
  async add(values: unknown): Promise<Row> {
    const row = (await this.collection.create(values as never)) as Row
    this.byId.set(String(row.id), row)
    for (const [field, index] of this.indexes) place(index, row[field as keyof Row], row)
    return row
  }

  async fill(rows: readonly unknown[], trusted: boolean): Promise<this> {
    this.trusted = trusted
    for (const values of rows) await this.add(values)
    this.trusted = false
    return this
  }
}

/**
 * One entity collection: an @msw/data Collection (the schema-checked record store) plus the
 * indexes the library lacks: by id (its `findFirst` scans every record) and by a foreign key
 * (`by`). Records handed out are the library's; change them only through `update`.
 *
 * A fork shares the rows, the collection and the indexes with its parent; the first write on
 * either side copies them for that side. So a new sandbox holds no copy of the seeded records
 * until it writes, and then only of the collections it wrote: the library's records were most
 * of a sandbox's size before (bench: `npm run bench -- --only memory`; docs/benchmarks-history.md).
 *
 * Joins (message→thread, history→visit, DTE→invoice) use `by`, not the library's relations:
 * a relation resolves by scanning the foreign collection (relation.ts `resolve` is a
 * `findMany` with a `where`), and adds a property to the record, which the spec's shapes do
 * not have. `node bench/joins.mjs` measures each join at the default size and at 100k with a
 * predicate `where`, the object form and `by`: `by` is the one that does not scan.
 */
export class Table<S extends z.ZodType<Row>> implements RecordCollection<z.infer<S>> {
  // A WorldTable too (collection.ts): World holds it as one, which the compiler checks there.
  /** Created on first use: a fork gets its parent's instead. */
  #data?: Rows
  /** Whether this side may change `#data` in place (false once shared with a fork). */
  #owned = true
  /** Told of every insert, update and removal (the Durable Object's storage follows it). */
  onChange?(id: string, row: z.infer<S> | undefined, inserted: boolean): void
  /** Told of every write with the row before and after it (the journal's `changes`, changes.ts). */
  recorder?: WriteRecorder

  constructor(
    readonly name: string,
    readonly schema: S,
  ) {}

  /** The library's collection holding the rows: the same object as a fork's until either side writes. */
  get collection(): Collection<S> {
    return this.#rows().collection as unknown as Collection<S>
  }

  /** A table with the same rows whose writes this one never sees, nor this one the fork's. */
  fork(): Table<S> {
    const copy = new Table(this.name, this.schema)
    copy.#data = this.#rows()
    copy.#owned = this.#owned = false
    return copy
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
    return this.all().filter(predicate)
  }

  /** Rows whose `field` equals `value`, in insertion order (a copy: callers may sort it). */
  by<K extends keyof z.infer<S>>(field: K, value: z.infer<S>[K]): z.infer<S>[] {
    const data = this.#rows()
    let index = data.indexes.get(field)
    if (!index) {
      index = new Map()
      for (const row of data.collection.all()) place(index, row[field as keyof Row], row)
      data.indexes.set(field, index)
    }
    return (index.get(value)?.slice() ?? []) as z.infer<S>[]
  }

  async insert(values: z.input<S>): Promise<z.infer<S>> {
    const row = await (await this.#own())!.add(values)
    this.onChange?.(String(row.id), row as z.infer<S>, true)
    this.recorder?.row(this.name, String(row.id), undefined, row)
    return row as z.infer<S>
  }

  async update(id: string | number, change: (draft: z.infer<S>) => void): Promise<z.infer<S> | undefined> {
    const data = await this.#own(id)
    const current = data?.byId.get(String(id))
    if (!current) return undefined
    const next = (await data!.collection.update(current as never, { data: change as never })) as Row
    data!.byId.set(String(id), next)
    // Indexes are rebuilt on next use: the tables joined through them are written by appending.
    data!.indexes.clear()
    this.onChange?.(String(id), next as z.infer<S>, false)
    // The library's update makes a new row: `current` still holds the values before it.
    this.recorder?.row(this.name, String(id), current, next)
    return next as z.infer<S>
  }

  async remove(id: string | number): Promise<z.infer<S> | undefined> {
    const data = await this.#own(id)
    const current = data?.byId.get(String(id))
    if (!current) return undefined
    data!.collection.delete(current as never)
    data!.byId.delete(String(id))
    data!.indexes.clear()
    this.onChange?.(String(id), undefined, false)
    this.recorder?.row(this.name, String(id), current, undefined)
    return current as z.infer<S>
  }

  /** Plain JSON-safe copies, in insertion order: what snapshots and forks carry. */
  rows(): z.infer<S>[] {
    return this.all().map((r) => structuredClone({ ...r }))
  }

  /**
   * Replaces every row (telling no `onChange`: a new world's tables are loaded before anyone
   * follows them). `trusted` rows came out of this schema already (seeded rows): they are not
   * checked again. The library stores its own copy of each row either way.
   */
  async load(rows: readonly z.input<S>[], trusted = false): Promise<void> {
    this.#data = await this.#empty().fill(rows, trusted)
    this.#owned = true
  }

  #rows(): Rows {
    return (this.#data ??= this.#empty())
  }

  #empty(): Rows {
    return new Rows(this.schema)
  }

  /**
   * The rows this side may change: its own, or a copy of the shared ones (copy on first write).
   * With an `id`: none when it names no row, and nothing is copied.
   */
  async #own(id?: string | number): Promise<Rows | undefined> {
    if (id !== undefined && !this.get(id)) return undefined
    if (!this.#owned) {
      const data = await this.#empty().fill(this.#rows().collection.all(), true)
      // Another write may have copied while this one waited.
      if (!this.#owned) ((this.#data = data), (this.#owned = true))
    }
    return this.#rows()
  }
}

function place(index: Map<unknown, Row[]>, value: unknown, row: Row) {
  const list = index.get(value)
  if (list) list.push(row)
  else index.set(value, [row])
}
