/**
 * What all journals of an app may hold together (issue 25: 200 full journals; bench:
 * `npm run bench -- --only memory`; docs/benchmarks-history.md).
 */
export const JOURNALS_MAX_BYTES = 64 * 1_048_576

/** A journal as the budget sees it: its oldest entry's place in the app's order, and a way to drop it. */
export interface BudgetedJournal {
  /** Order number of its oldest entry; Infinity when it holds none. */
  readonly oldest: number
  /** Drops its oldest entry; answers the bytes it held. */
  dropOldest(): number
}

/**
 * The bytes all journals of one app hold, counted as each counts them (bodies included), and
 * bounded together: past the bound the oldest entries go first, whichever sandbox holds them,
 * so many sandboxes cannot each fill a journal of their own.
 */
export class JournalBudget {
  #bytes = 0
  #order = 0
  readonly #holding = new Set<BudgetedJournal>()

  constructor(readonly maxBytes = JOURNALS_MAX_BYTES) {}

  get bytes(): number {
    return this.#bytes
  }

  /** The order number of an entry being added. */
  next(): number {
    return ++this.#order
  }

  /** A journal's bytes changed by `delta`; past the bound, the oldest entries of all go. */
  changed(journal: BudgetedJournal, delta: number): void {
    this.#bytes += delta
    if (journal.oldest === Infinity) this.#holding.delete(journal)
    else this.#holding.add(journal)
    while (this.#bytes > this.maxBytes) {
      let first: BudgetedJournal | undefined
      for (const j of this.#holding) if (!first || j.oldest < first.oldest) first = j
      if (!first) return
      this.#bytes -= first.dropOldest()
      if (first.oldest === Infinity) this.#holding.delete(first)
    }
  }
}
