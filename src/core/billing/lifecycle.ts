import { HttpError } from '../http/reply.js'

/**
 * One row of a transition table: what an event does in a state. `to` lists the states it may
 * lead to (several when data decides: the amount against the balance, the tax authority's
 * answer); `refuse` is the status and the rule when the event is not allowed there.
 */
export type Row<S extends string, E extends string> =
  { from: S; on: E; to: readonly S[] } | { from: S; on: E; refuse: 409 | 422; because: string }

/** A lifecycle as an explicit table: the one place to read what may happen (WireMock's habit). */
export class Lifecycle<S extends string, E extends string> {
  constructor(
    /** The field the state lives in, named by refusals: `status`, `local_status`. */
    readonly field: string,
    readonly rows: readonly Row<S, E>[],
  ) {
    const seen = new Set<string>()
    for (const r of rows) {
      const key = `${r.from}|${r.on}`
      if (seen.has(key)) throw new Error(`lifecycle ${field}: two rows for ${key}`)
      seen.add(key)
    }
  }

  row(from: S, on: E): Row<S, E> {
    const row = this.rows.find((r) => r.from === from && r.on === on)
    if (!row) throw new Error(`lifecycle ${this.field}: no row for ${on} in ${from}`)
    return row
  }

  /** The states `on` may lead to from `from`, or the table's refusal as an HttpError naming `subject`. */
  allow(from: S, on: E, subject: string): readonly S[] {
    const row = this.row(from, on)
    if ('refuse' in row) throw new HttpError(row.refuse, `${this.field}: ${subject} is ${from}; ${row.because}`)
    return row.to
  }

  /** Checks a chosen target against the table; a target it does not list is a bug, not a client error. */
  next(from: S, on: E, to: S, subject: string): S {
    const allowed = this.allow(from, on, subject)
    if (!allowed.includes(to)) throw new Error(`lifecycle ${this.field}: ${on} in ${from} cannot lead to ${to}`)
    return to
  }
}
