import * as z from 'zod'
import { IMPERSONATION_SESSION } from '../../../fixtures/accounts.js'
import { notificationSchema } from '../notifications/model.js'
import { scenarios as registry } from '../../../scenarios/index.js'
import { type Session, SessionStore } from '../auth/sessions.js'
import { signingKey } from '../auth/tokens.js'
import { Clock } from './clock.js'
import { badRequest } from '../http/reply.js'
import { Journal, type JournalEntry, Outbox, type OutboxEntry, outboxKinds } from './journal.js'
import { tableSchemas, type TableName } from '../store/collections.js'
import { validate } from '../http/request.js'
import { seededRandom, Sequence } from './random.js'
import type { ActiveScenario, ScenarioDefinition } from '../scenarios/define.js'
import { seedWorld, type Size } from '../seed/seed.js'
import type { NotificationIndex } from '../notifications/store.js'
import { indexNotifications, World, type WorldRows } from '../store/world.js'

export interface SandboxConfig {
  seed: number
  /** Fixed start of the clock; without it the real time when the sandbox starts. */
  now?: string
  /**
   * The instant seeded dates are relative to (epoch ms); default `now`, else the real time at
   * creation. Isolated sandboxes share the default's, so they fork its cached rows.
   */
  seededAt?: number
  size?: Size
  notifications?: number
  scenarios?: ActiveScenario[]
  journalCapacity?: number
  /** Clock that does not advance by itself (tests, snapshots). */
  frozenClock?: boolean
}

export const scenarioRegistry = new Map<string, ScenarioDefinition>(registry.map((s) => [s.name, s]))

/**
 * Parses one scenario: a name, `{name, options}`, or (headers, URLs, `--scenario`) the text
 * `name;key=value;key=value`, values read as JSON when they parse (`retryAfter=null`,
 * `ms=300`) and as text otherwise. Anything wrong is a 400 naming `field`.
 */
export function parseScenario(input: unknown, field = 'active'): ActiveScenario {
  let name: unknown
  let raw: unknown = {}
  if (typeof input === 'string') {
    const [head, ...pairs] = input.split(';').map((p) => p.trim())
    name = head
    raw = Object.fromEntries(pairs.filter(Boolean).map((pair) => optionPair(pair, head, field)))
  } else if (input && typeof input === 'object' && !Array.isArray(input)) {
    name = (input as { name?: unknown }).name
    raw = (input as { options?: unknown }).options ?? {}
  }
  if (typeof name !== 'string' || name === '') throw badRequest(`${field}: each entry must be a scenario name or {name, options}`)
  const def = scenarioRegistry.get(name)
  if (!def) throw badRequest(`${field}: unknown scenario "${name}"; known: ${[...scenarioRegistry.keys()].join(', ')}`)
  const parsed = def.options.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const rule = issue.code === 'unrecognized_keys' ? `unknown option ${issue.keys.join(', ')}; ${name} takes ${optionNames(def) || 'no options'}` : issue.message
    throw badRequest(`${field}: ${name}.options${issue.path.length ? '.' + issue.path.join('.') : ''}: ${rule}`)
  }
  return { name, options: parsed.data as Record<string, unknown> }
}

function optionNames(def: ScenarioDefinition): string {
  const schema = z.toJSONSchema(def.options, { io: 'input', unrepresentable: 'any' }) as { properties?: object }
  return Object.keys(schema.properties ?? {}).join(', ')
}

function optionPair(pair: string, name: string, field: string): [string, unknown] {
  const at = pair.indexOf('=')
  if (at < 1) throw badRequest(`${field}: "${pair}" in ${name} must be key=value, as in ${name};key=value`)
  const text = pair.slice(at + 1).trim()
  let value: unknown = text
  try {
    value = JSON.parse(text)
  } catch {
    // Plain text, such as outcome=accepted.
  }
  return [pair.slice(0, at).trim(), value]
}

/** `a,b;key=value`: the form of `x-sandbox-scenario`, `?sandbox-scenario=` and `--scenario`. */
export function parseScenarioList(text: string, field: string): ActiveScenario[] {
  const list = text.split(',').map((s) => s.trim()).filter(Boolean).map((s) => parseScenario(s, field))
  // The last mention of a name wins.
  return list.filter((a, i) => !list.slice(i + 1).some((b) => b.name === a.name))
}

interface Base {
  /** Every collection but the notifications, as the schemas output them. */
  rows: WorldRows
  notifications: NotificationIndex
}

/** Seeded worlds are kept per seed, size and start, so new sandboxes fork instead of re-seeding. */
const bases = new Map<string, Base>()

function baseFor(seed: number, now: number, size: Size | undefined, notifications: number | undefined): Base {
  const key = `${seed}|${now}|${size}|${notifications}`
  let base = bases.get(key)
  if (!base) {
    const rows = seedWorld({ seed, now, size, notifications })
    // Only the index is forked afterwards: the rows it was built from can go. Seeded rows are
    // already what the schemas output (src/core/seed/seed.test.ts), so no sandbox checks them.
    base = { rows: { ...rows, notifications: [] }, notifications: indexNotifications(rows.notifications) }
    if (bases.size >= 4) bases.delete(bases.keys().next().value!)
    bases.set(key, base)
  }
  return base
}

/** What a sandbox's control routes may see of the sandboxes beside it. */
export interface SandboxRegistry {
  readonly idleMs: number
  list(): { id: string; createdAt: string; lastUsedAt: string; idleMs: number }[]
  drop(id: string): boolean
}

const standalone: SandboxRegistry = { idleMs: 0, list: () => [], drop: () => false }

/** One isolated sandbox: records, sessions, clock, scenarios, journal and outbox. */
export class Sandbox {
  world!: World
  clock!: Clock
  sessions = new SessionStore()
  journal: Journal
  outbox = new Outbox()
  active: ActiveScenario[] = []
  ids = new Sequence()
  random!: () => number
  signingKey!: Uint8Array
  /** Per-scenario bookkeeping (rate-limit counters, sync counts), reset with the sandbox. */
  scenarioState = new Map<string, unknown>()
  seed: number
  /** The sandboxes this one lives among (set by `Sandboxes`). */
  registry: SandboxRegistry = standalone
  /** The instant seeded dates are relative to; fixed for the sandbox's life. */
  readonly seededAt: number
  #lock: Promise<unknown> = Promise.resolve()

  private constructor(
    readonly id: string,
    readonly config: SandboxConfig,
  ) {
    this.seed = config.seed
    this.seededAt = config.seededAt ?? (config.now ? Date.parse(config.now) : Date.now())
    this.journal = new Journal(config.journalCapacity)
  }

  static async create(id: string, config: SandboxConfig): Promise<Sandbox> {
    const sandbox = new Sandbox(id, config)
    await sandbox.reset(config.seed)
    for (const s of config.scenarios ?? []) sandbox.activate(s)
    return sandbox
  }

  /** Fresh data for `seed`; clears sessions, scenarios, clock, journal and outbox. */
  async reset(seed = this.seed): Promise<void> {
    const base = baseFor(seed, this.seededAt, this.config.size, this.config.notifications)
    const world = await World.fromRows(base.rows, base.notifications.fork(), true)
    this.seed = seed
    this.world = world
    // Without a fixed --now the clock starts at the real time, the data stays where it was seeded.
    const start = this.config.now ? Date.parse(this.config.now) : Date.now()
    this.clock = new Clock(start, Date.now, this.config.frozenClock)
    this.sessions = new SessionStore()
    const imp = IMPERSONATION_SESSION
    this.sessions.open(imp.userId, 'cli_acme', start, undefined, 'impersonation', imp.impersonatorId, imp.token)
    this.journal.clear()
    this.outbox.clear()
    this.active = []
    this.ids = new Sequence()
    this.scenarioState.clear()
    this.random = seededRandom(seed)
    this.signingKey = signingKey(seed)
  }

  /** Turns a scenario on (or replaces its options) and applies its state change. */
  activate(scenario: ActiveScenario): void {
    this.active = [...this.active.filter((a) => a.name !== scenario.name), scenario]
    scenarioRegistry.get(scenario.name)?.activate?.(this, scenario.options)
  }

  setScenarios(list: ActiveScenario[]): void {
    this.active = []
    this.scenarioState.clear()
    for (const s of list) this.activate(s)
  }

  /** Writes run one at a time, so racing requests see each other's effects (invariants hold). */
  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.#lock.then(fn, fn)
    this.#lock = run.catch(() => undefined)
    return run
  }

  iso(): string {
    return this.clock.iso()
  }

  /** The whole state as one JSON object keyed by collection name. */
  snapshot(): Snapshot {
    return { version: 1, ...this.state(), ...this.world.rows() }
  }

  /** Everything in a snapshot besides the records (what reads change: journal, sessions, clock). */
  state(): SandboxState {
    return {
      seed: this.seed,
      clock: this.clock.toJSON(),
      scenarios: this.active,
      sessions: this.sessions.all(),
      journal: this.journal.list(),
      outbox: this.outbox.list(),
      nextId: this.ids.value,
    }
  }

  /** Replaces the whole state with a snapshot; a malformed one is a 400 naming the field and changes nothing. */
  async restore(snapshot: unknown): Promise<void> {
    if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot)) throw badRequest('body: a snapshot must be a JSON object keyed by collection name')
    const s = validate(snapshotSchema, snapshot, 'body') as unknown as Snapshot
    const scenarios = s.scenarios.map((a, i) => parseScenario(a, `scenarios.${i}`))
    // Everything is built before anything is replaced.
    let world: World
    try {
      world = await World.fromRows(s)
    } catch (error) {
      throw badRequest(`body: a record does not match its collection (${(error as Error).message})`)
    }
    this.world = world
    this.seed = s.seed
    this.clock = new Clock(Date.parse(s.clock.now), Date.now, s.clock.frozen)
    this.sessions = new SessionStore(s.sessions)
    this.journal.load(s.journal)
    this.outbox.load(s.outbox)
    this.active = scenarios
    this.ids.value = s.nextId
    this.scenarioState.clear()
    this.random = seededRandom(s.seed)
    this.signingKey = signingKey(s.seed)
  }
}

export type Snapshot = { version: 1 } & SandboxState & WorldRows
export interface SandboxState {
  seed: number
  clock: { now: string; frozen: boolean }
  scenarios: ActiveScenario[]
  sessions: Session[]
  journal: JournalEntry[]
  outbox: OutboxEntry[]
  nextId: number
}

/** Records of one collection, each id once. */
const collection = (row: z.ZodType<{ id: string | number }>) =>
  z.array(row).superRefine((rows, ctx) => {
    const seen = new Set<string>()
    rows.forEach((r, i) => {
      const id = String(r.id)
      if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate id ${id}` })
      seen.add(id)
    })
  })

const isoDateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' })

const snapshotSchema = z.object({
  version: z.literal(1),
  seed: z.number().int().min(0).max(2 ** 31 - 1),
  clock: z.object({ now: isoDateTime, frozen: z.boolean() }),
  scenarios: z.array(z.unknown()),
  sessions: z.array(z.object({
    token: z.string().min(1), userId: z.string(), clientId: z.string(), kind: z.enum(['direct', 'impersonation']),
    impersonatorId: z.string().nullable(), createdAt: z.number(), lastSeenAt: z.number(), expiresAt: z.number(), ttlMs: z.number().positive(),
  })),
  journal: z.array(z.object({
    id: z.number().int().positive(), method: z.string(), path: z.string(), query: z.string(), status: z.number().int(),
    faults: z.array(z.string()), durationMs: z.number(), at: isoDateTime,
  })),
  outbox: z.array(z.object({
    id: z.string(), kind: z.enum(outboxKinds), to: z.string().nullable(), subject: z.string().nullable(),
    token: z.string().nullable(), ref: z.string().nullable(), at: isoDateTime,
  })),
  nextId: z.number().int().positive(),
  notifications: collection(notificationSchema.extend({ clientId: z.string() })),
  ...(Object.fromEntries(Object.entries(tableSchemas).map(([name, schema]) => [name, collection(schema as z.ZodType<{ id: string | number }>)])) as unknown as Record<TableName, z.ZodType>),
})
