/**
 * What every collection of a world answers, whichever store holds it: the 24 @msw/data tables
 * (Table) and the notification index (NotificationIndex, whose records are its entries).
 * Routes that only read, the control API and tools that browse a world use this shape.
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
