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

export const outboxKinds = ['email', 'message', 'password-reset', 'magic-link', 'sii-upload'] as const
export type OutboxKind = (typeof outboxKinds)[number]

/** An external effect; all seven fields always present, `null` where one does not apply. */
export interface OutboxEntry {
  id: string
  kind: OutboxKind
  to: string | null
  subject: string | null
  token: string | null
  ref: string | null
  at: string
}

export class Outbox {
  #entries: OutboxEntry[] = []
  #next = 1

  add(kind: OutboxKind, at: string, fields: Partial<Pick<OutboxEntry, 'to' | 'subject' | 'token' | 'ref'>>): OutboxEntry {
    const e: OutboxEntry = { id: `out_${this.#next++}`, kind, to: fields.to ?? null, subject: fields.subject ?? null, token: fields.token ?? null, ref: fields.ref ?? null, at }
    this.#entries.push(e)
    return e
  }

  list(): OutboxEntry[] {
    return this.#entries.slice()
  }

  clear(): void {
    this.#entries = []
  }

  load(entries: OutboxEntry[]): void {
    this.#entries = entries.slice()
    // Continue after the highest numbered id, so restored and new entries never share one.
    this.#next = entries.reduce((max, e) => Math.max(max, Number(/^out_(\d+)$/.exec(e.id)?.[1] ?? 0)), 0) + 1
  }
}
