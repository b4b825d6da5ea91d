import { hex, sha256Bytes } from '../http/bytes.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { WORLD_PARTS, concealed, readParts } from '../sandbox/parts.js'
import { undoAll } from './rewind.js'
// Loaded on first use; what it imports of the entry's own modules they hold anyway (its gzip budget, measured in test/browser/sandbox.test.ts).
import { type Step, withoutSessions } from './repro-log.js'
import { canonical } from './canonical.js'
import { scrubText } from '../sandbox/credentials.js'

export { canonical }

import { REPRO_READS, REPRO_VERSION } from './version.js'

/** The bundle format this sandbox writes, and those it reads (docs/debugging.md "The repro bundle"). */
export { REPRO_READS, REPRO_VERSION }

/** `GET /__sandbox/repro`: a world as its seed (or a base), its start and the steps since (docs/debugging.md). */
export interface ReproBundle {
  /** REPRO_VERSION when this sandbox made it; a bundle read may be an older one (REPRO_READS). */
  version: (typeof REPRO_READS)[number]
  seed: number
  /** The instant the seeded dates are relative to. */
  seededAt: string
  /** The clock when the world began (its last reset, or its base), and whether it was frozen. */
  now: string
  frozen: boolean
  size: string | null
  notifications: number | null
  /** `sha256:` of the --fixtures collections the world is built around, or `none`. */
  fixtures: string
  /** The scenario schedule and the overrides the world began with. */
  scenarios: unknown[]
  overrides: unknown[]
  /**
   * The world where the log begins, when it does not begin at the seed (a rewind, a restore, a
   * resume, a reload, the log's bound): every part a bundle carries (parts.ts), as a snapshot
   * holds it, credentials removed and minted tokens as marks. `why` says what began it.
   */
  base?: { why: string; parts: Record<string, unknown> }
  requests: Step[]
  /** The world when the bundle was made: its clock, and digests a replay must match (`parts`: one per collection and state). */
  end: {
    now: string
    frozen: boolean
    digest: string
    parts: Record<string, string>
    /** The digested parts but the records, as values (up to 256 KB): a refusal names the first field that differs. */
    values?: Record<string, unknown>
  }
  /** `sha256:` of everything above: a bundle changed or cut after it was made is refused before anything runs. */
  checksum: string
}

/** What a bundle is made of before its end is known: its start (seed or base) and its steps. */
export type BundleStart = Omit<ReproBundle, 'fixtures' | 'end' | 'checksum'>

/**
 * The start and steps of this sandbox's log, up to `moment` (all of them without one). With a
 * base whose records are found by undoing the journal's patches (parts.ts `heavy`), and the
 * journal no longer reaching back to it (or recording no changes), the log begins again from the
 * world as it is now: a bundle is always there.
 */
export function bundleStart(
  sandbox: Sandbox,
  moment?: { before: number } | { after: number },
  refuse: (status: 404 | 409, message: string) => Error = (_, m) => new Error(m),
): BundleStart {
  const log = sandbox.repro
  if (log.base && !heavyReachable(sandbox, log.base.from))
    log.rebase(sandbox, `${log.base.why}; the journal no longer reaches back to it, so the log begins again here`)
  const base = log.base
  let steps = log.steps
  if (moment) {
    const id = 'before' in moment ? moment.before : moment.after
    const field = 'before' in moment ? 'before' : 'after'
    const first = base?.from ?? 1
    const lastId = sandbox.journal.nextId - 1
    if (id > lastId) throw refuse(404, `${field}: no request ${id} in this sandbox's journal (the newest is ${lastId})`)
    // Just after the request a base follows is the base itself.
    if (id < first && !('after' in moment && base?.after?.entry === id)) {
      const cause = base?.after
        ? `request ${base.after.entry} ${base.after.cause}`
        : (base?.why ?? 'the world was reset')
      throw refuse(
        409,
        `${field}: the repro log begins at request ${first} (${cause}); no bundle reaches request ${id}`,
      )
    }
    // A request step's entry is its own id (so is a control call's the journal keeps: an outbox
    // cleared of its entries); another control step's, the id the next request took.
    steps = steps.filter((s) => ('before' in moment && log.ownEntry(s) ? s.entry! < id : s.entry! <= id))
  }
  return {
    version: REPRO_VERSION,
    seed: sandbox.seed,
    seededAt: new Date(sandbox.seededAt).toISOString(),
    now: log.start.now,
    frozen: log.start.frozen,
    size: sandbox.config.size ?? null,
    notifications: sandbox.config.notifications ?? null,
    scenarios: log.start.scenarios,
    overrides: log.start.overrides,
    ...(base ? { base: { why: base.why, parts: baseParts(sandbox, base) } } : {}),
    requests: steps,
  }
}

/** Whether the journal still holds every entry since `from`, with its changes. */
function heavyReachable(sandbox: Sandbox, from: number): boolean {
  return sandbox.config.changes !== false && (from >= sandbox.journal.nextId || sandbox.journal.firstId <= from)
}

/** A base's parts: those kept when the log began, and the heavy ones as they were then (the journal's patches since undone). */
function baseParts(sandbox: Sandbox, base: NonNullable<Sandbox['repro']['base']>): Record<string, unknown> {
  const heavy = WORLD_PARTS.filter((p) => p.heavy && typeof p.bundle === 'string')
  // The clock's own undo is kept in `values` (taken when the log began): a place for it here only.
  const then: Record<string, unknown> = { ...readParts(sandbox, heavy), clock: { now: '' } }
  // Newest first, as a rewind undoes: a link added then used is taken back used, then added.
  undoAll(then, sandbox.journal.since(base.from - 1).reverse())
  delete then.clock
  return { ...base.values, ...JSON.parse(sandbox.repro.concealed(canonical(concealed(then)), sandbox)) }
}

/** The bundle of this sandbox's world, whole or up to a moment; `end` comes from the world it rebuilds (`endOf`). */
export async function reproBundle(
  sandbox: Sandbox,
  start: BundleStart = bundleStart(sandbox),
  endOf: Sandbox = sandbox,
): Promise<ReproBundle> {
  const parts = await worldParts(endOf)
  const body: Omit<ReproBundle, 'checksum'> = {
    ...start,
    fixtures: await fixturesDigest(sandbox),
    end: {
      ...endOf.clock.toJSON(),
      digest: await sha256(
        Object.entries(parts)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n'),
      ),
      parts,
      ...withValues(endOf),
    },
  }
  return { ...body, checksum: await sha256(canonical(body)) }
}

/** Past this, `end.values` is left out: a refusal then names the part only. */
export const END_VALUES_BYTES = 256 * 1024

/**
 * The digested parts but the records (outbox, next id, scenarios and their counters, overrides,
 * OAuth, clock, seed) as the digests read them (minted tokens and sessions as marks), so a
 * refused replay names the first field that differs by its path, not only the part.
 */
function withValues(sandbox: Sandbox): { values?: Record<string, unknown> } {
  const state: Record<string, unknown> = {}
  for (const part of WORLD_PARTS)
    if (typeof part.digest === 'function' && !part.heavy) Object.assign(state, part.digest(sandbox))
  // Compared, never restored: a credential the world holds (a key sent in a message) is scrubbed on both sides.
  const text = scrubText(digestText(sandbox, state))
  return text.length > END_VALUES_BYTES ? {} : { values: JSON.parse(text) }
}

/** The values `end.values` holds, of this world: a replay compares them with the bundle's. */
export function endValues(sandbox: Sandbox): Record<string, unknown> | undefined {
  return withValues(sandbox).values
}

/** The first path at which two JSON values differ (`outbox[1].id: out_5 vs out_1`), or undefined. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (a === b) return undefined
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const at = Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k
      const found = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at)
      if (found) return found
    }
    return undefined
  }
  const show = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'absent')).slice(0, 120)
  return `${path}: ${show(a)} vs ${show(b)}`
}

/**
 * One digest per part a replay rebuilds and says it is equal (parts.ts `digest`): each
 * collection, seed, the clock when frozen, scenarios and their counters, overrides, OAuth,
 * outbox, next id. Minted tokens count as marks, not by their value (a replay mints others).
 */
export async function worldParts(sandbox: Sandbox): Promise<Record<string, string>> {
  const state: Record<string, unknown> = {}
  for (const part of WORLD_PARTS) if (typeof part.digest === 'function') Object.assign(state, part.digest(sandbox))
  const out: Record<string, string> = {}
  // Each minted token as one mark without its number: how a log numbers them is its own (a base numbers afresh).
  for (const name of Object.keys(state).sort())
    out[name] = (await sha256(digestText(sandbox, state[name]))).slice(7, 23)
  return out
}

/**
 * A part's text as its digest reads it: minted tokens as one mark, sessions as another, and a
 * set of sessions (those `session-expired` found when it turned on) without them: which sessions
 * a world had is not what a replay rebuilds (it signs in anew, one session per account).
 */
function digestText(sandbox: Sandbox, value: unknown): string {
  const text = withoutSessions(sandbox.repro.marked(canonical(value), false), sandbox)
  if (!text.includes('"$set"') || !text.includes(SESSION_MARK)) return text
  return canonical(
    JSON.parse(text, (key, v) => (key === '$set' && Array.isArray(v) ? v.filter((m) => m !== SESSION_MARK) : v)),
  )
}
const SESSION_MARK = '{{session}}'

export async function fixturesDigest(sandbox: Sandbox): Promise<string> {
  return sandbox.config.fixtures ? sha256(canonical(sandbox.config.fixtures)) : 'none'
}

/** A text's digest as a bundle writes it: `sha256:` and the hex. */
export async function sha256(text: string): Promise<string> {
  return `sha256:${hex(await sha256Bytes(text))}`
}
