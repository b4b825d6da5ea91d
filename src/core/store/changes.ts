import type { OutboxEntry } from '../sandbox/outbox.js'

/**
 * One step of a request's change: an RFC 6902 operation over the snapshot's shape with each
 * collection keyed by id (`/invoices/inv_1/status`, `/sessions/<token>`, `/outbox/out_3`), plus
 * `from`, the value a `replace` or `remove` found, so the step can be undone (the contract's name,
 * docs/contract.md; RFC 6902 reads `from` only for `move` and `copy`, which a change never has,
 * and libraries ignore it elsewhere). docs/contract.md "What a request changed".
 */
export interface ChangeOp {
  op: 'add' | 'remove' | 'replace'
  path: string
  value?: unknown
  from?: unknown
}

/** What one journaled request changed: the patch, and the outbox entries it produced. */
export interface Changes {
  patch: ChangeOp[]
  outbox: OutboxEntry[]
}

/** Told of every write of a sandbox's stores, as it happens (tables, notifications, sessions, outbox). */
export interface WriteRecorder {
  /** A record added (`before` absent), removed (`after` absent) or changed. */
  row(collection: string, id: string, before: object | undefined, after: object | undefined): void
  outbox(entry: OutboxEntry, removed?: boolean): void
}

/** An id or field as one segment of a JSON Pointer (RFC 6901). */
export const pointer = (segment: string) =>
  segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment

/** A JSON Pointer's segments (RFC 6901 unescaped). */
export const segments = (path: string) =>
  path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))

/**
 * Fields whose values the journal never keeps (docs/inspector.md: passwords are never kept): a
 * change shows them as `[not kept]`, and a rewind leaves them as they are.
 */
export const SECRET_FIELDS = new Set(['password'])
export const NOT_KEPT = '[not kept]'

/** A plain JSON copy of a record as the snapshot shows it (the store's records carry symbols), secrets left out. */
function plain(row: object): object {
  const out = structuredClone({ ...row }) as Record<string, unknown>
  for (const field of SECRET_FIELDS) if (field in out) out[field] = NOT_KEPT
  return out
}

const same = (a: unknown, b: unknown) =>
  a === b ||
  (typeof a === 'object' &&
    a !== null &&
    typeof b === 'object' &&
    b !== null &&
    JSON.stringify(a) === JSON.stringify(b))

/**
 * Collects the writes of the request running (writes of a sandbox run one at a time, see
 * `Sandbox.exclusive`) until the pipeline takes them for its journal entry. Only writes pay:
 * a record changed costs a field-by-field comparison of the row, nothing is diffed whole.
 */
export class ChangeRecorder implements WriteRecorder {
  #patch: ChangeOp[] = []
  #outbox: OutboxEntry[] = []

  get size(): number {
    return this.#patch.length
  }

  row(collection: string, id: string, before: object | undefined, after: object | undefined): void {
    const at = `/${pointer(collection)}/${pointer(id)}`
    if (!before) return void (after && this.#patch.push({ op: 'add', path: at, value: plain(after) }))
    if (!after) return void this.#patch.push({ op: 'remove', path: at, from: plain(before) })
    const was = before as Record<string, unknown>
    const now = after as Record<string, unknown>
    const kept = (field: string, v: unknown) => (SECRET_FIELDS.has(field) ? NOT_KEPT : copy(v))
    for (const field in now) {
      const path = `${at}/${pointer(field)}`
      if (!(field in was)) this.#patch.push({ op: 'add', path, value: kept(field, now[field]) })
      else if (!same(was[field], now[field]))
        this.#patch.push({ op: 'replace', path, value: kept(field, now[field]), from: kept(field, was[field]) })
    }
    for (const field in was)
      if (!(field in now))
        this.#patch.push({ op: 'remove', path: `${at}/${pointer(field)}`, from: kept(field, was[field]) })
  }

  outbox(entry: OutboxEntry, removed = false): void {
    const path = `/outbox/${pointer(entry.id)}`
    if (removed) this.#patch.push({ op: 'remove', path, from: entry })
    else {
      this.#patch.push({ op: 'add', path, value: entry })
      this.#outbox.push(entry)
    }
  }

  /** Any other step (the clock a rewind moved). */
  push(op: ChangeOp): void {
    this.#patch.push(op)
  }

  /** What was recorded since the last take; none when nothing changed (reads). */
  take(): Changes | undefined {
    if (this.#patch.length === 0) return undefined
    const changes = { patch: this.#patch, outbox: this.#outbox }
    this.#patch = []
    this.#outbox = []
    return changes
  }
}

const copy = (v: unknown) => (typeof v === 'object' && v !== null ? structuredClone(v) : v)
