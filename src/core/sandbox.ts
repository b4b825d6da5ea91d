import { z } from 'zod'
import { IMPERSONATION_SESSION } from '../../fixtures/accounts.js'
import { notificationSchema } from './model/notifications.js'
import { scenarios as registry } from '../../scenarios/index.js'
import { type Session, SessionStore } from './auth/sessions.js'
import { signingKey } from './auth/tokens.js'
import { Clock } from './clock.js'
import { badRequest } from './http.js'
import { Journal, type JournalEntry, Outbox, type OutboxEntry } from './journal.js'
import { seededRandom, Sequence } from './random.js'
import type { ActiveScenario, ScenarioDefinition } from './scenarios/define.js'
import { seedWorld, type Size } from './seed/index.js'
import type { NotificationIndex } from './store/notification-index.js'
import { indexNotifications, World, type WorldRows } from './store/world.js'

export interface SandboxConfig {
  seed: number
  /** Fixed start of the clock; without it the real time when the sandbox starts. */
  now?: string
  size?: Size
  notifications?: number
  scenarios?: ActiveScenario[]
  journalCapacity?: number
  /** Clock that does not advance by itself (tests, snapshots). */
  frozenClock?: boolean
}

export const scenarioRegistry = new Map<string, ScenarioDefinition>(registry.map((s) => [s.name, s]))

/** Parses a scenario name and options, or a 400 naming what is wrong. */
export function parseScenario(input: unknown, field = 'active'): ActiveScenario {
  const name = typeof input === 'string' ? input : (input as { name?: unknown } | null)?.name
  if (typeof name !== 'string') throw badRequest(`${field}: each entry must be a scenario name or {name, options}`)
  const def = scenarioRegistry.get(name)
  if (!def) throw badRequest(`${field}: unknown scenario "${name}"; known: ${[...scenarioRegistry.keys()].join(', ')}`)
  const raw = typeof input === 'string' ? {} : ((input as { options?: unknown }).options ?? {})
  const parsed = def.options.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw badRequest(`${field}: ${name}.options${issue.path.length ? '.' + issue.path.join('.') : ''}: ${issue.message}`)
  }
  return { name, options: parsed.data as Record<string, unknown> }
}

interface Base {
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
    base = { rows, notifications: indexNotifications(rows.notifications) }
    if (bases.size >= 4) bases.delete(bases.keys().next().value!)
    bases.set(key, base)
  }
  return base
}

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
  start!: number
  lastUsed = Date.now()
  #lock: Promise<unknown> = Promise.resolve()

  private constructor(
    readonly id: string,
    readonly config: SandboxConfig,
  ) {
    this.seed = config.seed
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
    this.seed = seed
    this.start = this.config.now ? Date.parse(this.config.now) : Date.now()
    const base = baseFor(seed, this.start, this.config.size, this.config.notifications)
    this.world = await World.fromRows(base.rows, base.notifications.fork())
    this.clock = new Clock(this.start, Date.now, this.config.frozenClock)
    this.sessions = new SessionStore()
    const imp = IMPERSONATION_SESSION
    this.sessions.open(imp.userId, 'cli_acme', this.start, undefined, 'impersonation', imp.impersonatorId, imp.token)
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
    return {
      version: 1,
      seed: this.seed,
      clock: this.clock.toJSON(),
      scenarios: this.active,
      sessions: this.sessions.all(),
      journal: this.journal.list(),
      outbox: this.outbox.list(),
      nextId: this.ids.value,
      ...this.world.rows(),
    }
  }

  async restore(snapshot: unknown): Promise<void> {
    const parsed = snapshotSchema.safeParse(snapshot)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw badRequest(`snapshot.${issue.path.join('.')}: ${issue.message}`)
    }
    const s = parsed.data
    const scenarios = s.scenarios.map((a, i) => parseScenario(a, `snapshot.scenarios.${i}`))
    let world: World
    try {
      world = await World.fromRows(s as unknown as WorldRows)
    } catch (error) {
      throw badRequest(`snapshot: a record does not match its collection's schema (${(error as Error).message})`)
    }
    this.world = world
    this.seed = s.seed
    this.clock = new Clock(Date.parse(s.clock.now), Date.now, s.clock.frozen)
    this.sessions = new SessionStore(s.sessions as Session[])
    this.journal.load(s.journal as unknown as JournalEntry[])
    this.outbox.load(s.outbox as unknown as OutboxEntry[])
    this.active = scenarios
    this.ids.value = s.nextId
    this.scenarioState.clear()
    this.random = seededRandom(s.seed)
    this.signingKey = signingKey(s.seed)
  }
}

export type Snapshot = ReturnType<typeof snapshotShape> & WorldRows
const snapshotShape = () => ({}) as {
  version: 1
  seed: number
  clock: { now: string; frozen: boolean }
  scenarios: ActiveScenario[]
  sessions: Session[]
  journal: JournalEntry[]
  outbox: OutboxEntry[]
  nextId: number
}

const snapshotSchema = z.looseObject({
  version: z.literal(1),
  seed: z.number().int(),
  clock: z.object({ now: z.iso.datetime(), frozen: z.boolean() }),
  scenarios: z.array(z.unknown()),
  sessions: z.array(z.object({ token: z.string(), userId: z.string(), clientId: z.string(), kind: z.enum(['direct', 'impersonation']), impersonatorId: z.string().nullable(), createdAt: z.number(), lastSeenAt: z.number(), expiresAt: z.number(), ttlMs: z.number() })),
  journal: z.array(z.looseObject({ id: z.number() })),
  outbox: z.array(z.looseObject({ id: z.string(), kind: z.string() })),
  nextId: z.number().int().positive(),
  notifications: z.array(notificationSchema.extend({ clientId: z.string() })),
})
