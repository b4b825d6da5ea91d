/** A set of at most `max` values, the oldest let go first: ids that wait for an event that may never come. */
export class BoundedSet<T> extends Set<T> {
  constructor(readonly max: number) {
    super()
  }

  override add(value: T): this {
    super.add(value)
    if (this.size > this.max) this.delete(this.values().next().value as T)
    return this
  }
}
