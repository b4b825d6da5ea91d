/** A request as the journal keeps it (SANDBOX.md: `{id, method, path, status, faults, durationMs, at}`). */
export interface JournalEntry {
  id: number
  method: string
  path: string
  query: string
  status: number
  faults: string[]
  durationMs: number
  at: string
}

/** Bounded ring, newest last: a long session never grows memory. */
export class Journal {
  #entries: JournalEntry[] = []
  #next = 1

  constructor(readonly capacity = 1000) {}

  add(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const e = { id: this.#next++, ...entry }
    this.#entries.push(e)
    if (this.#entries.length > this.capacity) this.#entries.splice(0, this.#entries.length - this.capacity)
    return e
  }

  list(): JournalEntry[] {
    return this.#entries.slice()
  }

  clear(): void {
    this.#entries = []
  }

  load(entries: JournalEntry[]): void {
    this.#entries = entries.slice(-this.capacity)
    this.#next = entries.reduce((max, e) => Math.max(max, e.id), 0) + 1
  }
}
