import { conflict, HttpError, notFound } from '../http/reply.js'
import { SECRET_FIELDS, segments } from '../store/changes.js'
import type { JournalEntry } from '../sandbox/journal.js'
import { insertByNumber } from '../sandbox/outbox.js'
import { undoOp } from '../sandbox/parts.js'
import type { Sandbox, Snapshot } from '../sandbox/sandbox.js'

/** A moment of the journal: just before a request, or just after it (`POST /__sandbox/rewind`). */
export type Moment = { before: number } | { after: number }

/**
 * The entries whose changes a rewind to `moment` undoes, newest first, and the clock there: a
 * 404 for an id the journal never gave, a 409 naming the oldest reachable request for one past
 * the journal's bound (dropped, or before a reset, restore or replaced collection).
 */
export function reach(sandbox: Sandbox, moment: Moment): { undo: JournalEntry[]; clock: number } {
  const field = 'before' in moment ? 'before' : 'after'
  const id = 'before' in moment ? moment.before : moment.after
  const { journal } = sandbox
  if (id >= journal.nextId)
    throw notFound(`${field}: no request ${id} in this sandbox's journal (the newest is ${journal.nextId - 1})`)
  if (sandbox.config.changes === false)
    throw conflict(
      `${field}: this sandbox records no changes (it was started with --no-changes, SANDBOX_NO_CHANGES), so no request can be rewound`,
    )
  const oldest = Math.max(journal.firstId, sandbox.horizon)
  if (oldest >= journal.nextId)
    throw conflict(
      `${field}: request ${id} is no longer reachable, and no request is: the journal holds none since the last reset, restore or replaced collection`,
    )
  if (id < oldest)
    throw conflict(`${field}: request ${id} is no longer reachable; the oldest reachable is request ${oldest}`)
  const undo = journal.since('before' in moment ? id - 1 : id).reverse()
  const at = journal.get(id)!
  // Just before: the clock when the request came in (a running clock ran during it).
  const clock = Date.parse(at.at) - ('before' in moment && !sandbox.clock.frozen ? Math.round(at.durationMs) : 0)
  return { undo, clock }
}

/**
 * Puts the world's rewound parts (parts.ts `rewind`: records, sessions, outbox, clock) back to
 * `moment` by undoing each entry's patch, newest first, through the stores (so the runtime's storage follows, and the undo is itself
 * recorded: the rewind's own entry can be rewound). On a refusal nothing has changed.
 */
export async function rewind(sandbox: Sandbox, moment: Moment): Promise<void> {
  const { undo, clock } = reach(sandbox, moment)
  // Writes a stray write left pending belong to no request: kept apart, put back after.
  const stray = sandbox.changes.take()
  try {
    for (const entry of undo) for (const op of [...(entry.changes?.patch ?? [])].reverse()) await undoOp(sandbox, op)
  } catch (error) {
    // What was undone so far is done again: a failed rewind changes nothing.
    const done = sandbox.changes.take()
    for (const op of [...(done?.patch ?? [])].reverse()) await undoOp(sandbox, op).catch(() => undefined)
    sandbox.changes.take()
    throw error instanceof HttpError
      ? error
      : conflict(
          `body: the journal's changes no longer match the records (${(error as Error).message}); nothing was rewound`,
        )
  } finally {
    if (stray) for (const op of stray.patch) sandbox.changes.push(op)
  }
  const old = sandbox.clock.iso()
  sandbox.clock.set(clock)
  if (sandbox.clock.iso() !== old)
    sandbox.changes.push({ op: 'replace', path: '/clock/now', value: sandbox.clock.iso(), from: old })
  sandbox.changed('rewind')
}

/**
 * The snapshot as it was at `moment` (`GET /__sandbox/snapshot?before=`): the current one with
 * each entry's patch undone on its JSON, newest first; the journal as it was then too. A record
 * put back comes last in its collection, as a rewind puts it.
 */
export function snapshotAt(sandbox: Sandbox, moment: Moment): Snapshot {
  const { undo, clock } = reach(sandbox, moment)
  const snapshot = sandbox.snapshot()
  undoAll(snapshot, undo)
  const last = 'before' in moment ? moment.before - 1 : moment.after
  snapshot.journal = snapshot.journal.filter((e) => e.id <= last)
  snapshot.clock = { ...snapshot.clock, now: new Date(clock).toISOString() }
  return snapshot
}

/** One collection's records (as the snapshot holds them) as they were at `moment`: the inspector's world view. */
export function collectionAt(sandbox: Sandbox, moment: Moment, name: string, rows: readonly unknown[]): unknown[] {
  const { undo } = reach(sandbox, moment)
  const one = { [name]: rows.map((r) => structuredClone({ ...(r as object) })) }
  undoAll(one, undo)
  return one[name]
}

/**
 * Undoes entries' patches (newest first) on a snapshot's JSON, where collections are arrays
 * of records and the patch keys them by id (`sessions` by token). Also the reference the
 * property test checks the live rewind and fast-json-patch against.
 */
export function undoAll(snapshot: Record<string, unknown>, entries: readonly JournalEntry[]): void {
  const places = new Map<string, Map<string, number>>()
  const list = (name: string) => snapshot[name] as Record<string, unknown>[]
  const where = (name: string, id: string) => {
    let byId = places.get(name)
    if (!byId)
      places.set(name, (byId = new Map(list(name).map((r, i) => [String(name === 'sessions' ? r.token : r.id), i]))))
    return byId.get(id)
  }
  for (const entry of entries) {
    for (const op of [...(entry.changes?.patch ?? [])].reverse()) {
      const [name, id, field] = segments(op.path)
      if (name === 'clock') {
        ;(snapshot.clock as { now: string }).now = op.from as string
        continue
      }
      if (!Array.isArray(snapshot[name])) continue
      if (field === undefined) {
        // A record comes or goes: the places of the others move.
        if (op.op === 'add') list(name).splice(where(name, id) ?? list(name).length, 1)
        else if (name === 'outbox') insertByNumber(list(name), structuredClone(op.from) as Record<string, unknown>)
        else list(name).push(structuredClone(op.from) as Record<string, unknown>)
        places.delete(name)
        continue
      }
      const i = where(name, id)
      if (i === undefined || SECRET_FIELDS.has(field)) continue
      const row = list(name)[i]
      if (op.op === 'add') delete row[field]
      else row[field] = structuredClone(op.from)
    }
  }
}
