import type { z } from 'zod'
import type { WriteRecorder } from './changes.js'

/**
 * What every collection of a world answers, whichever store holds it: the 24 @msw/data tables
 * (Table) and the notifications (NotificationTable, over their sorted index). Routes that only
 * read, the control API and tools that browse a world use this shape.
 */
export interface RecordCollection<R> {
  readonly name: string
  readonly size: number
  /** The record with this id, in O(1). */
  get(id: string | number): R | undefined
  /** Every record, in the collection's own order. */
  all(): R[]
  /** Records matching `predicate` (a scan: prefer `get` or an indexed lookup on hot paths). */
  where(predicate: (record: R) => boolean): R[]
}

/** A record of any collection, as snapshots, fixtures and patches hold it. */
export type AnyRow = { id: string | number } & Record<string, unknown>

/**
 * One collection of a world as the code that handles every collection alike sees it (snapshots,
 * stored state, rewind, provider states, fixtures, the inspector): a table or the notifications.
 * Methods, not function-valued fields, so a table of one record type is one of any.
 */
export interface WorldTable<R extends { id: string | number } = AnyRow> extends RecordCollection<R> {
  /** The schema of one record (what a snapshot or fixture row is checked with). */
  readonly schema: z.ZodType
  /** Adds a record, checked by the schema; refused (throws) when it breaks it. */
  insert(values: R): Promise<R>
  /** Changes a record through a draft; undefined when no record has this id. */
  update(id: string | number, change: (draft: R) => void): Promise<R | undefined>
  /** Takes a record out; undefined when no record has this id. */
  remove(id: string | number): Promise<R | undefined>
  /** Plain JSON-safe copies, in the collection's order: what snapshots and forks carry. */
  rows(): R[]
  /** Replaces every record (no `onChange`); `trusted` rows came out of the schema already. */
  load(rows: readonly R[], trusted?: boolean): Promise<void>
  /** The same records, shared until either side writes. */
  fork(): WorldTable<R>
  /** Told of every insert, update and removal (a runtime's stored state follows it). */
  onChange?(id: string, row: R | undefined, inserted: boolean): void
  /** Told of every write with the record before and after it (the journal's `changes`). */
  recorder?: WriteRecorder
}
