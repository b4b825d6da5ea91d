import { Collection } from '@msw/data'
import type { z } from 'zod'

type Row = { id: string | number }

/**
 * One entity collection: an @msw/data Collection (the schema-checked record store) plus the
 * by-id index the library lacks (its `findFirst` scans every record).
 * Records handed out are the library's; change them only through `update`.
 */
export class Table<S extends z.ZodType<Row>> {
  readonly collection: Collection<S>
  #byId = new Map<string, z.infer<S>>()
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

  async insert(values: z.input<S>): Promise<z.infer<S>> {
    const row = (await this.collection.create(values as never)) as z.infer<S>
    this.#byId.set(String(row.id), row)
    this.onChange?.(String(row.id), row, true)
    return row
  }

  async update(id: string | number, change: (draft: z.infer<S>) => void): Promise<z.infer<S> | undefined> {
    const current = this.#byId.get(String(id))
    if (!current) return undefined
    const next = (await this.collection.update(current as never, { data: change as never })) as z.infer<S>
    this.#byId.set(String(id), next)
    this.onChange?.(String(id), next, false)
    return next
  }

  remove(id: string | number): z.infer<S> | undefined {
    const current = this.#byId.get(String(id))
    if (!current) return undefined
    this.collection.delete(current as never)
    this.#byId.delete(String(id))
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
    this.#trusted = trusted
    try {
      for (const row of rows) await this.insert(trusted ? structuredClone(row) : row)
    } finally {
      this.#trusted = false
    }
  }
}
