import { Collection } from '@msw/data'
import type { z } from 'zod'
import type { RecordCollection } from './collection.js'

type Row = { id: string | number }

/**
 * One entity collection: an @msw/data Collection (the schema-checked record store) plus the
 * indexes the library lacks: by id (its `findFirst` scans every record) and by a foreign key
 * (`by`). Records handed out are the library's; change them only through `update`.
 *
 * Joins (message→thread, history→visit, DTE→invoice) use `by`, not the library's relations:
 * a relation resolves by scanning the foreign collection (relation.ts `resolve` is a
 * `findMany` with a `where`), and adds a property to the record, which the spec's shapes do
 * not have. Measured (bench/joins.mjs, default size and 100k): a thread's messages 25–28 µs
 * with a predicate `where`, 48–53 µs with the object form, 0.1 µs through `by`; a visit's
 * history 16–29, 73–87 and under 2.5 µs.
 */
export class Table<S extends z.ZodType<Row>> implements RecordCollection<z.infer<S>> {
  readonly collection: Collection<S>
  #byId = new Map<string, z.infer<S>>()
  /** Insertion order of each id, so that indexed lists keep the library's order. */
  #order = new Map<string, number>()
  #next = 0
  /** Field → value → rows in insertion order; built on first use, kept by every write. */
  #indexes = new Map<keyof z.infer<S>, Map<unknown, z.infer<S>[]>>()
  /** Set while loading rows that already passed this schema (a fork of the seeded world). */
  #trusted = false
  /** Told of every insert, update and removal (the Durable Object's storage follows it). */
  onChange?: (id: string, row: z.infer<S> | undefined, inserted: boolean) => void

  constructor(
    readonly name: string,
    readonly schema: S,
  ) {
    const standard = schema['~standard']
    // The schema as the library sees it: the zod schema, skipped only for trusted loads.
    const gate = { '~standard': { ...standard, validate: (value: unknown) => (this.#trusted ? { value } : standard.validate(value)) } } as unknown as S
    this.collection = new Collection({ schema: gate })
  }

  get size(): number {
    return this.#byId.size
  }

  get(id: string | number): z.infer<S> | undefined {
    return this.#byId.get(String(id))
  }

  all(): z.infer<S>[] {
    return this.collection.all() as z.infer<S>[]
  }

  where(predicate: (row: z.infer<S>) => boolean): z.infer<S>[] {
    return this.collection.findMany((q) => q.where(predicate as never)) as z.infer<S>[]
  }

  /** Rows whose `field` equals `value`, in insertion order (a copy: callers may sort it). */
  by<K extends keyof z.infer<S>>(field: K, value: z.infer<S>[K]): z.infer<S>[] {
    let index = this.#indexes.get(field)
    if (!index) {
      index = new Map()
      for (const row of this.all()) this.#place(index, row[field], row)
      this.#indexes.set(field, index)
    }
    return index.get(value)?.slice() ?? []
  }

  #place(index: Map<unknown, z.infer<S>[]>, value: unknown, row: z.infer<S>) {
    let list = index.get(value)
    if (!list) index.set(value, (list = []))
    const at = this.#order.get(String(row.id)) ?? Infinity
    let i = list.length
    while (i > 0 && (this.#order.get(String(list[i - 1].id)) ?? Infinity) > at) i--
    list.splice(i, 0, row)
  }

  #unplace(index: Map<unknown, z.infer<S>[]>, value: unknown, row: z.infer<S>) {
    const list = index.get(value)
    const i = list?.indexOf(row) ?? -1
    if (i >= 0) list!.splice(i, 1)
  }

  async insert(values: z.input<S>): Promise<z.infer<S>> {
    const row = (await this.collection.create(values as never)) as z.infer<S>
    this.#byId.set(String(row.id), row)
    this.#order.set(String(row.id), this.#next++)
    for (const [field, index] of this.#indexes) this.#place(index, row[field], row)
    this.onChange?.(String(row.id), row, true)
    return row
  }

  async update(id: string | number, change: (draft: z.infer<S>) => void): Promise<z.infer<S> | undefined> {
    const current = this.#byId.get(String(id))
    if (!current) return undefined
    // The library changes the record in place: note the indexed values before.
    const before = [...this.#indexes.keys()].map((field) => current[field])
    const next = (await this.collection.update(current as never, { data: change as never })) as z.infer<S>
    this.#byId.set(String(id), next)
    let i = 0
    for (const [field, index] of this.#indexes) {
      this.#unplace(index, before[i++], current)
      this.#unplace(index, before[i - 1], next)
      this.#place(index, next[field], next)
    }
    this.onChange?.(String(id), next, false)
    return next
  }

  remove(id: string | number): z.infer<S> | undefined {
    const current = this.#byId.get(String(id))
    if (!current) return undefined
    this.collection.delete(current as never)
    for (const [field, index] of this.#indexes) this.#unplace(index, current[field], current)
    this.#byId.delete(String(id))
    this.#order.delete(String(id))
    this.onChange?.(String(id), undefined, false)
    return current
  }

  /** Plain JSON-safe copies, in insertion order: what snapshots and forks carry. */
  rows(): z.infer<S>[] {
    return this.all().map((r) => structuredClone({ ...r }))
  }

  /** Replaces every row. `trusted` rows came out of this schema already: a fork skips re-checking them. */
  async load(rows: readonly z.input<S>[], trusted = false): Promise<void> {
    this.collection.clear()
    this.#byId.clear()
    this.#order.clear()
    this.#indexes.clear()
    this.#trusted = trusted
    try {
      for (const row of rows) await this.insert(trusted ? structuredClone(row) : row)
    } finally {
      this.#trusted = false
    }
  }
}
