import * as z from 'zod'
import { type Session, SESSION_LIMIT, SessionStore } from '../auth/sessions.js'
import { SIGNING_KEY_PATTERN, newSigningKey } from '../auth/tokens.js'
import { oauthSchema } from '../agents/stored.js'
import { emptyOAuth } from '../agents/state.js'
import { badRequest } from '../http/reply.js'
import { validate } from '../http/validate.js'
import { OVERRIDE_LIMIT } from '../overrides/overrides.js'
import { fixWindow } from '../scenarios/window.js'
import { collectionSchemas } from '../store/fixtures.js'
import type { AnyRow } from '../store/collection.js'
import { World, type WorldRows } from '../store/world.js'
import { type ChangeOp, NOT_KEPT, SECRET_FIELDS, segments } from '../store/changes.js'
import { Clock } from '../clock/clock.js'
import { JOURNAL_MAX_ENTRIES, type JournalEntry } from './journal.js'
import { CREDENTIAL_KINDS, OUTBOX_LIMIT, type OutboxEntry, outboxKinds } from './outbox.js'
import type { SandboxParts } from './types.js'

/**
 * The parts of a world (docs/contract.md "One world, every part"), each declared once with every
 * operation a world goes through. Snapshot and restore, the stored state of every runtime, new
 * worlds, reset, rewind, repro bundles and their replay, and the digest are all derived from
 * this list: none of them names a part, so a part added here travels everywhere, and the tests
 * generated from the list (test/world/parts.test.ts) check it does.
 */
export interface WorldPart<T = unknown, F extends object = Record<string, unknown>> {
  /** Its name in messages and tests, and its field in a snapshot (`records`: one per collection). */
  readonly key: string
  /** The snapshot's fields it holds. */
  readonly fields: readonly string[]
  /** Older snapshots lack it: absent, a restore leaves it as a reset does. */
  readonly optional?: true
  /** Its fields as a snapshot holds them: plain JSON (the snapshot's type is derived from them: `PartFields`). */
  read(s: SandboxParts): F
  /**
   * Checks its fields of a snapshot, a bundle's base or a stored state, and builds what `write`
   * puts in place (a 400 naming the field and the rule). Nothing changes here: every part is
   * checked before any is written. `trusted`: the runtime's own stored state (not checked again).
   */
  check(input: Record<string, unknown>, s: SandboxParts, trusted: boolean): T | Promise<T>
  /** Puts a checked value in place (restore, resume, a replayed bundle's base). */
  write(s: SandboxParts, value: T): void
  /** Puts a checked value in place as the control API does, with what that sets off (a repro bundle's `part` step); `write` without it. */
  put?(s: SandboxParts, value: T): void
  /** As in a new world (reset, a new `x-sandbox-id`). */
  reset(s: SandboxParts): void
  /** Takes another world's part as it is (a replay's world put in place of this one). */
  take(s: SandboxParts, from: SandboxParts): void
  /** Its share of the digest that says two worlds are equal, or why a replay cannot rebuild it. */
  readonly digest: ((s: SandboxParts) => Record<string, unknown>) | { skip: string }
  /** How a runtime's storage keeps it: one value under `key`, written when it changed; or a store of the port's own (persisted.ts). */
  readonly store: { value: string; version?(s: SandboxParts): number } | { own: string }
  /** A rewind: undoes one operation of a journal entry's patch, or says why the part is kept. */
  readonly rewind: { undo(s: SandboxParts, op: ChangeOp, path: string[]): void | Promise<void> } | { kept: string }
  /**
   * A repro bundle: `base` (in a bundle's base, later changes replayed by its steps), `value` (a
   * step carries its new value when it changes: what no request of a replay remakes), or why it
   * is left out (a credential, the journal the replay writes anew).
   */
  readonly bundle: 'base' | 'value' | { skip: string }
  /**
   * A scenario's counters and an override's uses: a request no replay sends (OAuth) may change
   * them when a scenario or an override answered it; then a step carries the part's value.
   */
  readonly counted?: true
  /** Too large to copy at every new start of a repro log: its base is found by undoing the journal's patches since (time-travel/bundle.ts). */
  readonly heavy?: true
  /** Its bound (docs/bounds.md), checked on a restore before anything is built. */
  readonly bound: { entries: number } | { perCollection: number }
}

const isoDateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' })
/** A field checked as a snapshot's (a 400 names `field.path: rule`); the runtime's own stored state is taken as it is. */
const checked = <T>(schema: z.ZodType<T>, value: unknown, field: string, trusted: boolean): T =>
  trusted
    ? (value as T)
    : (validate(z.object({ [field]: schema }), { [field]: value }, 'body') as Record<string, T>)[field]

/** Records per collection a snapshot may hold (the largest seeded world has about 1.1 million notifications). */
export const COLLECTION_LIMIT = 2_000_000
/** Active scenarios: each is parsed on restore, and a name counts once, so more is never a real state. */
export const SCENARIO_LIMIT = 100

/** One value under one field: the snapshot's field `key` holds what `get` gives (optional when the part is). */
function single<K extends string, T, V, const O extends true | undefined = undefined>(
  key: K,
  p: Omit<WorldPart<T>, 'key' | 'fields' | 'read' | 'optional'> & { optional?: O; get(s: SandboxParts): V },
): WorldPart<T, O extends true ? { [P in K]?: V } : { [P in K]: V }> {
  const { get, ...rest } = p
  return { key, fields: [key], read: (s) => ({ [key]: get(s) }) as { [P in K]: V }, ...rest }
}

/** Maps and Sets (scenario bookkeeping) as JSON, and back. */
const encodeMaps = (_: string, v: unknown) =>
  v instanceof Map ? { $map: [...v] } : v instanceof Set ? { $set: [...v] } : v
const decodeMaps = (_: string, v: unknown) => {
  if (v && typeof v === 'object' && '$map' in v) return new Map((v as { $map: [unknown, unknown][] }).$map)
  if (v && typeof v === 'object' && '$set' in v) return new Set((v as { $set: unknown[] }).$set)
  return v
}

const seed = single('seed', {
  get: (s) => s.seed,
  check: (input, _s, trusted) =>
    checked(
      z
        .number()
        .int()
        .min(0)
        .max(2 ** 31 - 1),
      input.seed,
      'seed',
      trusted,
    ),
  write: (s, value) => void (s.seed = value),
  reset: () => undefined,
  take: (s, from) => void (s.seed = from.seed),
  digest: (s) => ({ seed: s.seed }),
  store: { own: 'meta' },
  rewind: { kept: 'a rewind keeps the seed' },
  bundle: 'base',
  bound: { entries: 1 },
})

/**
 * Record fields that are credentials: a bundle's base carries `[not kept]` in their place, a
 * replay takes the seeded world's value for the same record (the demo accounts' password and API
 * token), and the digest leaves them out. A password set since the seed is never carried.
 */
export const CONCEALED: Readonly<Record<string, readonly string[]>> = { users: ['password'], apiTokens: ['token'] }

/** Collections as a snapshot holds them, credentials `[not kept]` (a copy where one is replaced). */
export function concealed(rows: Record<string, unknown>): Record<string, unknown> {
  const out = { ...rows }
  for (const [name, fields] of Object.entries(CONCEALED)) {
    if (Array.isArray(out[name]))
      out[name] = (out[name] as Record<string, unknown>[]).map((r) => ({
        ...r,
        ...Object.fromEntries(fields.filter((f) => f in r).map((f) => [f, NOT_KEPT])),
      }))
  }
  return out
}

/** Concealed fields of `rows` given the value of the same record in `world` (a replay's seeded world), or `fallback`. */
export function revealed(
  rows: Record<string, unknown>,
  world: World,
  fallback: (field: string) => string,
): Record<string, unknown> {
  const out = { ...rows }
  for (const [name, fields] of Object.entries(CONCEALED)) {
    const table = world.table(name)
    if (!Array.isArray(out[name]) || !table) continue
    out[name] = (out[name] as Record<string, unknown>[]).map((r) => {
      const row = { ...r }
      for (const f of fields) if (row[f] === NOT_KEPT) row[f] = table.get(String(row.id))?.[f] ?? fallback(f)
      return row
    })
  }
  return out
}

/**
 * Tokens the world minted that open it (a password reset's, a magic link's), wherever they are:
 * the outbox, then the records, in that order (a log beginning at a base numbers them so, and so
 * does a replay of the base). A bundle carries marks in their place.
 */
export function credentialTokens(s: SandboxParts): string[] {
  const out = s.outbox
    .list()
    .filter((e) => e.token && CREDENTIAL_KINDS.has(e.kind))
    .map((e) => e.token!)
  for (const r of s.world.tables.passwordResets.all()) out.push(String(r.id))
  for (const c of s.world.tables.portalContacts.all()) for (const l of c.magicLinks ?? []) out.push(l.token)
  return [...new Set(out)]
}

const recordsSchema = z.object(collectionSchemas)

const records: WorldPart<World, WorldRows> = {
  key: 'records',
  fields: Object.keys(collectionSchemas),
  read: (s) => s.world.rows(),
  async check(input, _s, trusted) {
    // Every collection is required, each record checked by its collection's schema (a 400 naming `collection.index.field`).
    if (!trusted) validate(recordsSchema, Object.fromEntries(records.fields.map((f) => [f, input[f]])), 'body')
    try {
      return await World.fromRows(input as WorldRows, trusted)
    } catch (error) {
      throw badRequest(`body: a record does not match its collection (${(error as Error).message})`)
    }
  },
  write(s, world) {
    s.world = world
    // No seed reproduces these rows.
    s.markRecordsWhole()
  },
  // The seeded world is made by Sandbox.reset (async, shared between worlds of one seed).
  reset: () => undefined,
  take: (s, from) => void (s.world = from.world),
  // Credentials aside: a replayed world has the seed's or its own.
  digest: (s) => concealed(s.world.rows()),
  store: { own: 'records' },
  rewind: { undo: undoRecord },
  bundle: 'base',
  heavy: true,
  bound: { perCollection: COLLECTION_LIMIT },
}

const clock = single('clock', {
  get: (s) => s.clock.toJSON(),
  check(input, _s, trusted) {
    const c = checked(z.object({ now: isoDateTime, frozen: z.boolean() }), input.clock, 'clock', trusted)
    return new Clock(Date.parse(c.now), Date.now, c.frozen)
  },
  write: (s, value) => void (s.clock = value),
  reset(s) {
    // Without a fixed --now the clock starts at the real time, the data stays where it was seeded.
    s.clock = new Clock(s.config.now ? Date.parse(s.config.now) : Date.now(), Date.now, s.config.frozenClock)
  },
  take: (s, from) => void (s.clock = from.clock),
  // A running clock is another instant each time it is read: only a frozen one is compared.
  digest: (s) => ({ clock: s.clock.frozen ? s.clock.toJSON() : { frozen: false } }),
  store: { own: 'clock' },
  // Set once at the end of a rewind (time-travel/rewind.ts), not op by op.
  rewind: { undo: () => undefined },
  bundle: 'base',
  bound: { entries: 1 },
})

const sessionSchema = z.object({
  token: z.string().min(1),
  userId: z.string(),
  clientId: z.string(),
  kind: z.enum(['direct', 'impersonation']),
  impersonatorId: z.string().nullable(),
  createdAt: z.number(),
  lastSeenAt: z.number(),
  expiresAt: z.number(),
  ttlMs: z.number().positive(),
})

const sessions = single('sessions', {
  get: (s) => s.sessions.all(),
  check: (input, _s, trusted) => checked(z.array(sessionSchema), input.sessions, 'sessions', trusted),
  write: (s, value) => void (s.sessions = new SessionStore(value)),
  reset(s) {
    s.sessions = new SessionStore()
    const imp = s.config.accounts.IMPERSONATION_SESSION
    s.sessions.open(imp.userId, 'cli_acme', s.clock.now(), undefined, 'impersonation', imp.impersonatorId, imp.token)
  },
  take: (s, from) => void (s.sessions = from.sessions),
  digest: { skip: "sessions are credentials: a replay signs in again as each step's account" },
  store: { own: 'sessions' },
  rewind: {
    undo(s, op, [, token, field]) {
      if (field === undefined) {
        if (op.op === 'add') s.sessions.close(token)
        else s.sessions.put({ ...(op.from as Session) })
        return
      }
      const session = s.sessions.get(token)
      if (!session) throw new Error(`${op.path}: no such session`)
      s.sessions.set(session, field as 'expiresAt', op.from as number)
    },
  },
  bundle: { skip: "sessions are credentials: a replay signs in again as each step's account" },
  bound: { entries: SESSION_LIMIT },
})

const scenarios = single('scenarios', {
  get: (s) => s.active,
  check(input, s, trusted) {
    const list = checked(z.array(z.unknown()), input.scenarios, 'scenarios', trusted)
    // Windows are fixed on the clock the same input brings, else on this world's.
    const clock = input.clock as { now?: unknown } | undefined
    const now = typeof clock?.now === 'string' ? Date.parse(clock.now) : s.clock.now()
    return list.map((a, i) => fixWindow(s.shared.scenarios.parse(a, `scenarios.${i}`), now, `scenarios.${i}`))
  },
  write: (s, value) => void (s.active = value),
  // Those in force turn on, as PUT /__sandbox/scenarios turns them (session-expired expires the sessions).
  put: (s, value) => s.setScenarios(value),
  reset: (s) => void (s.active = []),
  take: (s, from) => void (s.active = from.active),
  digest: (s) => ({ scenarios: s.active }),
  store: { value: 'k:scenarios' },
  rewind: { kept: 'a rewind keeps the scenarios in force (PUT /__sandbox/scenarios sets them)' },
  bundle: 'base',
  bound: { entries: SCENARIO_LIMIT },
})

/** A scenario's counters are numbers, Maps and Sets: as JSON. */
/** The counters as JSON: the Map of counters is `{$map}` (a Set inside, `{$set}`). */
const scenarioStateJson = (s: SandboxParts): { $map: [string, unknown][] } =>
  JSON.parse(JSON.stringify(s.scenarioState, encodeMaps)) as { $map: [string, unknown][] }

const scenarioState = single('scenarioState', {
  optional: true,
  get: (s) => scenarioStateJson(s),
  check(input, _s, trusted) {
    const value = checked(
      z.object({ $map: z.array(z.tuple([z.string(), z.unknown()])).max(SCENARIO_LIMIT) }),
      input.scenarioState ?? { $map: [] },
      'scenarioState',
      trusted,
    )
    return JSON.parse(JSON.stringify(value), decodeMaps) as Map<string, unknown>
  },
  write: (s, value) => void (s.scenarioState = value),
  reset: (s) => void (s.scenarioState = new Map()),
  take: (s, from) => void (s.scenarioState = from.scenarioState),
  digest: (s) => ({ scenarioState: scenarioStateJson(s) }),
  store: { value: 'k:state' },
  rewind: { kept: "a rewind keeps the scenarios' counters (rate limits count on)" },
  bundle: 'base',
  counted: true,
  bound: { entries: SCENARIO_LIMIT },
})

const overrides = single('overrides', {
  optional: true,
  get: (s) => s.overrides.list(),
  async check(input, s, trusted) {
    const list = checked(z.array(z.unknown()), input.overrides ?? [], 'overrides', trusted)
    if (trusted || !list.length) return list
    // Checked with a schema loaded on first use (the browser entry's budget), and within the bytes a world and the app hold (413).
    const checkedList = (await import('../overrides/override.js')).storedOverrides(list)
    s.overrides.fits(checkedList)
    return checkedList
  },
  write: (s, value) => s.overrides.load(value as never),
  reset: (s) => s.overrides.reset(),
  take: (s, from) => s.overrides.load(from.overrides.list()),
  digest: (s) => ({ overrides: s.overrides.list() }),
  // Tens of KB for a hundred: written again only when they changed.
  store: { value: 'k:overrides', version: (s) => s.overrides.version },
  rewind: { kept: 'a rewind keeps the overrides (the control API sets them)' },
  // A change through the control API is a `part` step (sandbox/events.ts CHANGED_PART), their uses counted by the requests replayed.
  bundle: 'base',
  counted: true,
  bound: { entries: OVERRIDE_LIMIT },
})

const oauth = single('oauth', {
  optional: true,
  get: (s) => s.oauth,
  check: (input, _s, trusted) =>
    input.oauth === undefined ? emptyOAuth() : checked(oauthSchema, input.oauth, 'oauth', trusted),
  write: (s, value) => void (s.oauth = value),
  reset: (s) => void (s.oauth = emptyOAuth()),
  take: (s, from) => void (s.oauth = from.oauth),
  digest: (s) => ({ oauth: { ...s.oauth, version: 0 } }),
  store: { value: 'k:oauth', version: (s) => s.oauth.version },
  rewind: { kept: 'a rewind keeps agent access: OAuth clients, codes and grants' },
  // Client ids, codes and refresh tokens are random: a replay could not remake them, so each change travels as a value (codes and tokens as hashes only).
  bundle: 'value',
  bound: { entries: 1 },
})

const outboxEntry = z.object({
  id: z.string(),
  kind: z.enum(outboxKinds),
  to: z.string().nullable(),
  subject: z.string().nullable(),
  token: z.string().nullable(),
  ref: z.string().nullable(),
  at: isoDateTime,
})

const outbox = single('outbox', {
  get: (s) => s.outbox.list(),
  check: (input, _s, trusted) => checked(z.array(outboxEntry), input.outbox, 'outbox', trusted),
  write: (s, value) => s.outbox.load(value),
  reset: (s) => s.outbox.reset(),
  take: (s, from) => s.outbox.load(from.outbox.list()),
  // Minted tokens count by their order, not their value (a replay mints others): time-travel/bundle.ts marks them.
  digest: (s) => ({ outbox: s.outbox.list() }),
  store: { own: 'outbox' },
  rewind: {
    undo(s, op, [, id]) {
      if (op.op === 'add') {
        const gone = s.outbox.remove(id)
        if (gone) s.changes.outbox(gone, true)
      } else {
        s.outbox.put(op.from as OutboxEntry)
        s.changes.outbox(op.from as OutboxEntry)
      }
    },
  },
  bundle: 'base',
  bound: { entries: OUTBOX_LIMIT },
})

const journalEntry = z.object({
  id: z.number().int().positive(),
  method: z.string(),
  path: z.string(),
  query: z.string(),
  status: z.number().int(),
  faults: z.array(z.string()),
  durationMs: z.number(),
  at: isoDateTime,
  // What a write changed (docs/contract.md "What a request changed"): kept as it came.
  changes: z
    .object({
      patch: z.array(
        z.object({
          op: z.enum(['add', 'remove', 'replace']),
          path: z.string(),
          value: z.unknown().optional(),
          from: z.unknown().optional(),
        }),
      ),
      outbox: z.array(z.unknown()),
    })
    .optional(),
  via: z.literal('mcp').optional(),
  tool: z.string().max(256).optional(),
  conduct: z.array(z.string().max(64)).max(8).optional(),
})

const journal = single('journal', {
  get: (s) => s.journal.list(),
  check: (input, _s, trusted) => checked(z.array(journalEntry), input.journal, 'journal', trusted) as JournalEntry[],
  // Its entries' changes still undo what they did (a world resumed from its stored state rewinds); a restore sets where a rewind stops.
  write: (s, value) => s.journal.load(value),
  reset(s) {
    s.journal.clear()
    s.horizon = 0
  },
  // As kept, not as shown: a JWT is shown `<redacted>` (a pact of the world names its caller), an upload's bytes as text.
  take: (s, from) => s.journal.takeFrom(from.journal),
  digest: { skip: "the journal is history: a replay's requests write their own" },
  store: { own: 'journal' },
  rewind: { kept: 'the journal keeps every request, the rewind among them' },
  bundle: { skip: "the journal is history: a bundle's steps are the requests, and a replay journals them anew" },
  bound: { entries: JOURNAL_MAX_ENTRIES },
})

const nextId = single('nextId', {
  get: (s) => s.ids.value,
  check: (input, _s, trusted) => checked(z.number().int().positive(), input.nextId, 'nextId', trusted),
  write: (s, value) => void (s.ids.value = value),
  reset: (s) => void (s.ids.value = 1),
  take: (s, from) => void (s.ids.value = from.ids.value),
  digest: (s) => ({ nextId: s.ids.value }),
  store: { value: 'k:ids' },
  rewind: { kept: "ids are never given twice, a rewind's records aside" },
  bundle: 'base',
  bound: { entries: 1 },
})

const draws = single('draws', {
  optional: true,
  get: (s) => s.draws,
  check: (input, _s, trusted) => checked(z.number().int().min(0).max(1e9), input.draws ?? 0, 'draws', trusted),
  write: (s, value) => s.reseed(value),
  reset: (s) => s.reseed(0),
  take: (s, from) => s.reseed(from.draws),
  digest: {
    skip: 'reads draw too (latency of `slow`), and a bundle replays only the reads a scenario or override shaped',
  },
  store: { value: 'k:draws' },
  rewind: { kept: 'the seeded generator goes on: a rewound world draws new numbers' },
  bundle: 'base',
  // A scenario deciding by chance on a request no replay sends (degraded on OAuth's reads) draws.
  counted: true,
  bound: { entries: 1 },
})

const signingKey = single('signingKey', {
  optional: true,
  get: (s) => s.signingKeyHex,
  // A snapshot from before keys were kept gets a new one (its tokens were forgeable anyway).
  check: (input, _s, trusted) =>
    input.signingKey === undefined
      ? newSigningKey()
      : checked(
          z.string().regex(SIGNING_KEY_PATTERN, 'must be 64 hexadecimal digits'),
          input.signingKey,
          'signingKey',
          trusted,
        ),
  write: (s, value) => s.setKey(value),
  reset: (s) => s.setKey(newSigningKey()),
  take: (s, from) => s.setKey(from.signingKeyHex),
  digest: { skip: 'a secret: a replayed world signs with its own key' },
  store: { value: 'k:key' },
  rewind: { kept: 'tokens signed before a rewind stay valid' },
  bundle: { skip: 'a secret: a replayed world signs with its own key' },
  bound: { entries: 1 },
})

/** Every part, in the order operations run (the seed first, the clock before what is fixed on it) and snapshots list them. */
const PARTS = [
  seed,
  clock,
  scenarios,
  scenarioState,
  sessions,
  journal,
  outbox,
  nextId,
  draws,
  signingKey,
  overrides,
  oauth,
  records,
] as const
export const WORLD_PARTS: readonly WorldPart[] = PARTS as readonly WorldPart[]

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never
/** A snapshot's fields, every part's, as the parts' `read` gives them: a part added to the list is in the type. */
export type PartFields = Intersection<ReturnType<(typeof PARTS)[number]['read']>>

/** The part a snapshot field belongs to. */
export function partOf(field: string): WorldPart | undefined {
  return WORLD_PARTS.find((p) => p.fields.includes(field))
}

/** A world's snapshot fields, every part's (`GET /__sandbox/snapshot` adds `version`). */
export function readParts(s: SandboxParts, parts: readonly WorldPart[] = WORLD_PARTS): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const p of parts) Object.assign(out, p.read(s))
  return out
}

/** Checks every part of `input` (400 naming the field), then writes them all: a refusal changes nothing. Absent optional parts are reset. */
export async function writeParts(
  s: SandboxParts,
  input: Record<string, unknown>,
  trusted = false,
  parts: readonly WorldPart[] = WORLD_PARTS,
): Promise<void> {
  const built: [WorldPart, unknown][] = []
  for (const p of parts) {
    if (p.optional && p.fields.every((f) => input[f] === undefined)) built.push([p, undefined])
    else built.push([p, await p.check(input, s, trusted)])
  }
  for (const [p, value] of built) {
    if (value === undefined) p.reset(s)
    else p.write(s, value)
  }
}

/** One operation of a journal entry's patch undone on the live world, by the part its path names. */
export async function undoOp(s: SandboxParts, op: ChangeOp): Promise<void> {
  const path = segments(op.path)
  const part = partOf(path[0]) ?? (path[0] === 'clock' ? clock : undefined)
  if (!part || !('undo' in part.rewind))
    throw new Error(`${op.path}: ${part ? `${part.key} is not rewound` : `no part of the world holds ${path[0]}`}`)
  await part.rewind.undo(s, op, path)
}

/** Records: a row put back, taken out or changed field by field. */
async function undoRecord(s: SandboxParts, op: ChangeOp, [collection, id, field, ...deeper]: string[]): Promise<void> {
  if (deeper.length || id === undefined) throw new Error(`${op.path}: not a record or a field of one`)
  const table = s.world.table(collection)
  if (!table) throw new Error(`${op.path}: no collection ${collection}`)
  if (field === undefined) {
    if (op.op === 'add') {
      if (!(await table.remove(id))) throw new Error(`${op.path}: no such record`)
    } else await table.insert(structuredClone(op.from) as AnyRow)
    return
  }
  // A secret's value was never kept: it stays as it is.
  if (SECRET_FIELDS.has(field)) return
  const done = await table.update(id, (draft) => {
    if (op.op === 'add') delete draft[field]
    else draft[field] = structuredClone(op.from)
  })
  if (!done) throw new Error(`${op.path}: no such record`)
}
