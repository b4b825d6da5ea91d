export const outboxKinds = ['email', 'message', 'password-reset', 'magic-link', 'sii-upload'] as const
export type OutboxKind = (typeof outboxKinds)[number]
/** Kinds whose token opens the world (random, never the same twice): repro bundles carry marks in their place. */
export const CREDENTIAL_KINDS: ReadonlySet<OutboxKind> = new Set(['password-reset', 'magic-link'])

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

/** Entries kept per sandbox; past it the oldest go first (docs/contract.md "Bounds and trust"). */
export const OUTBOX_LIMIT = 10_000

export class Outbox {
  #entries: OutboxEntry[] = []
  #next = 1

  constructor(
    readonly capacity = OUTBOX_LIMIT,
    private readonly onAdd?: (entry: OutboxEntry) => void,
  ) {}

  add(
    kind: OutboxKind,
    at: string,
    fields: Partial<Pick<OutboxEntry, 'to' | 'subject' | 'token' | 'ref'>>,
  ): OutboxEntry {
    const e: OutboxEntry = {
      id: `out_${this.#next++}`,
      kind,
      to: fields.to ?? null,
      subject: fields.subject ?? null,
      token: fields.token ?? null,
      ref: fields.ref ?? null,
      at,
    }
    this.#entries.push(e)
    if (this.#entries.length > this.capacity) this.#entries.splice(0, this.#entries.length - this.capacity)
    this.onAdd?.(e)
    return e
  }

  /** Takes an entry out (a rewind undoing the request that produced it); answers whether it was there. */
  remove(id: string): OutboxEntry | undefined {
    const i = this.#entries.findIndex((e) => e.id === id)
    const gone = i < 0 ? undefined : this.#entries.splice(i, 1)[0]
    this.#renumber()
    return gone
  }

  /** Puts an entry back in its place by number (a rewind undoing a removal). */
  put(entry: OutboxEntry): void {
    insertByNumber(this.#entries, entry)
    this.#renumber()
  }

  /**
   * The next id follows the highest one held, whatever took entries out (a rewind, a clear, a
   * reset): the number is the list's own, so a snapshot, a base or a replay that holds the same
   * list numbers the next entry the same.
   */
  #renumber(): void {
    this.#next = this.#entries.reduce((max, e) => Math.max(max, outboxNumber(e)), 0) + 1
  }

  list(): OutboxEntry[] {
    return this.#entries.slice()
  }

  /** Empty, numbered from `out_1` again (a clear, a reset): as a replay of its log numbers them. */
  clear(): void {
    this.#entries = []
    this.#next = 1
  }

  reset(): void {
    this.clear()
  }

  load(entries: OutboxEntry[]): void {
    this.#entries = entries.slice(-this.capacity)
    // Continue after the highest numbered id, so restored and new entries never share one.
    this.#renumber()
  }
}

/** The number in an entry's id (`out_12`), the order entries were made in. */
export const outboxNumber = (e: { id?: unknown }) => Number(/^out_(\d+)$/.exec(String(e.id))?.[1] ?? 0)

/** Inserts an entry among entries in id order, where its number puts it (the live outbox, or a snapshot's). */
export function insertByNumber<E extends { id?: unknown }>(entries: E[], entry: E): void {
  const n = outboxNumber(entry)
  let i = entries.length
  while (i > 0 && outboxNumber(entries[i - 1]) > n) i--
  entries.splice(i, 0, entry)
}
