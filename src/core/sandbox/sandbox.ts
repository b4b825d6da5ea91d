import { type Session, SessionStore } from '../auth/sessions.js'
import { keyBytes, newSigningKey } from '../auth/tokens.js'
import { badRequest } from '../http/reply.js'
import { validate } from '../http/validate.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import type { ActiveScenario } from '../scenarios/define.js'
import { entered, fixWindow, inWindow, timed } from '../scenarios/window.js'
import type { Accounts, Size } from '../seed/seed.js'
import { type FixtureRows, parseFixtures } from '../store/fixtures.js'
import { World, type WorldRows, indexNotifications } from '../store/world.js'
import type { TableName } from '../store/collections.js'
import { Clock } from './clock.js'
import { Journal, type JournalEntry } from './journal.js'
import type { JournalBudget } from './journal-budget.js'
import { Outbox, type OutboxEntry } from './outbox.js'
import { ChangeRecorder } from './changes.js'
import { Overrides, OverridesBudget } from '../overrides/overrides.js'
import type { Override } from '../overrides/override.js'
import { SandboxEvents, type StateChange } from './events.js'
import { ReproBudget, ReproLog } from '../repro/log.js'
import { type OAuthState, emptyOAuth } from '../agents/state.js'
import { seededRandom, Sequence } from './random.js'
import type { SeededWorlds } from './seeded-worlds.js'
import type { ListPages } from '../notifications/notification-store.js'
import { type SandboxState, type Snapshot, checkBounds, snapshotSchema } from './snapshot.js'

export type { SandboxState, Snapshot } from './snapshot.js'

/** What a runtime kept of a sandbox, put back by `Sandbox.resume`; absent parts stay as they are. */
export interface ResumedParts {
  records?: WorldRows
  seed?: number
  clock?: { now: number; frozen: boolean }
  sessions?: Session[]
  journal?: JournalEntry[]
  outbox?: OutboxEntry[]
  scenarios?: ActiveScenario[]
  scenarioState?: Map<string, unknown>
  overrides?: Override[]
  ids?: number
  draws?: number
  signingKey?: string
  oauth?: OAuthState
}

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
  /** The fixed records every world is built around (`fixtures/accounts.ts`). */
  accounts: Accounts
  scenarios?: ActiveScenario[]
  journalCapacity?: number
  /** Clock that does not advance by itself (tests, snapshots). */
  frozenClock?: boolean
  /** Collections that replace the seeded ones in every world: at start, in each reset, in each isolated sandbox. */
  fixtures?: FixtureRows
  /** `false`: journal entries carry no `changes`, and nothing can be rewound (`--no-changes`: what recording costs, `npm run bench -- --only changes`). */
  changes?: boolean
}

/** What a sandbox's control routes may see of the sandboxes beside it (async where they live in other objects). */
export interface SandboxRegistry {
  readonly idleMs: number
  readonly maxSandboxes: number
  list(): SandboxInfo[] | Promise<SandboxInfo[]>
  drop(id: string): boolean | Promise<boolean>
  evicted(): Evictions | Promise<Evictions>
}

export interface SandboxInfo {
  id: string
  createdAt: string
  lastUsedAt: string
  idleMs: number
}

export interface Evictions {
  count: number
  recent: { id: string; reason: 'idle' | 'capacity'; at: string }[]
}

const standalone: SandboxRegistry = { idleMs: 0, maxSandboxes: 0, list: () => [], drop: () => false, evicted: () => ({ count: 0, recent: [] }) }

/** What every sandbox of one app shares: the scenarios it knows and its seeded worlds. */
export interface SandboxShared {
  scenarios: ScenarioRegistry
  worlds: SeededWorlds
  /** Encoded notification list pages (the worlds' entries are shared forks, so is the cache). */
  pages: ListPages
  /** The bound on the bytes of all the app's journals together. */
  journals?: JournalBudget
  /** The bound on the bytes of all the app's repro logs together. */
  repro?: ReproBudget
  /** The bound on the bytes of all the app's overrides together. */
  overrides?: OverridesBudget
}

/** One isolated sandbox: records, sessions, clock, scenarios, journal and outbox. */
export class Sandbox {
  clock!: Clock
  /** The writes of the request running, taken for its journal entry (`changes`, sandbox/changes.ts). */
  readonly changes = new ChangeRecorder()
  /** Agent access: OAuth clients, codes and grants (src/core/agents). */
  oauth: OAuthState = emptyOAuth()
  /** Listeners of `GET /__sandbox/events`. */
  readonly events = new SandboxEvents()
  journal: Journal
  outbox = new Outbox(undefined, (data) => {
    this.#recorder?.outbox(data)
    this.repro.outbox(data)
    this.events.emit({ type: 'outbox', data })
  })
  /** What a repro bundle is made of (`GET /__sandbox/repro`, src/core/repro). */
  repro: ReproLog
  #world!: World
  #sessions = new SessionStore()
  /**
   * The first journal entry a rewind may reach: entries before a change no patch holds (a
   * replaced collection, a restored snapshot) cannot be undone to.
   */
  horizon = 0
  /** The world's own answers (`/__sandbox/overrides`), indexed by operation. */
  readonly overrides: Overrides
  #schedule: ActiveScenario[] = []
  /** Whether an entry has a window: without one, every entry is in force and nothing is checked per request. */
  #timed = false
  /** The clock when the schedule was last looked at: a window entered since turns its scenario on. */
  #lookedAt: number | undefined
  ids = new Sequence()
  /** The sandbox's seeded generator; its draws are counted, so a stored sandbox goes on where it was. */
  readonly random = (): number => {
    this.#draws++
    return this.#generator()
  }
  #generator: () => number = seededRandom(0)
  #draws = 0
  /** The seed the records derive from; null once a snapshot restore replaced them (no seed reproduces them). */
  #base: number | null = null
  /** Told synchronously of every state change (the persistence port follows resets and restores). */
  #watchers = new Set<(change: StateChange) => void>()
  /** The key of the tokens this sandbox signs (hex, random; kept in its state). */
  #key = ''
  signingKey!: Uint8Array
  /** Per-scenario bookkeeping (rate-limit counters, sync counts), reset with the sandbox. */
  scenarioState = new Map<string, unknown>()
  seed: number
  /** The sandboxes this one lives among (set by `Sandboxes`). */
  registry: SandboxRegistry = standalone
  /** The instant seeded dates are relative to; fixed for the sandbox's life (a replay brings its bundle's). */
  seededAt: number
  #lock: Promise<unknown> = Promise.resolve()

  private constructor(
    readonly id: string,
    public config: SandboxConfig,
    readonly shared: SandboxShared,
  ) {
    this.seed = config.seed
    this.seededAt = config.seededAt ?? (config.now ? Date.parse(config.now) : Date.now())
    this.repro = new ReproLog((shared.repro ??= new ReproBudget()))
    this.overrides = new Overrides((shared.overrides ??= new OverridesBudget()))
    this.journal = new Journal(config.journalCapacity, undefined, (data) => this.events.emit({ type: 'request', data }), shared.journals)
  }

  static async create(id: string, config: SandboxConfig, shared: SandboxShared): Promise<Sandbox> {
    const sandbox = new Sandbox(id, config, shared)
    await sandbox.reset(config.seed)
    if (config.scenarios?.length) sandbox.setScenarios(config.scenarios, 'scenario')
    // The world begins here: the scenarios it was started with are the bundle's, not a step.
    sandbox.repro.begin(sandbox)
    return sandbox
  }

  /** Fresh data for `seed`; clears sessions, scenarios, clock, journal and outbox. */
  async reset(seed = this.seed): Promise<void> {
    const fixtures = this.config.fixtures && parseFixtures(this.config.fixtures)
    const world = await this.shared.worlds.world(seed, this.seededAt, this.config.size, this.config.notifications, fixtures)
    this.seed = seed
    this.world = world
    // Without a fixed --now the clock starts at the real time, the data stays where it was seeded.
    const start = this.config.now ? Date.parse(this.config.now) : Date.now()
    this.clock = new Clock(start, Date.now, this.config.frozenClock)
    this.sessions = new SessionStore()
    const imp = this.config.accounts.IMPERSONATION_SESSION
    this.sessions.open(imp.userId, 'cli_acme', start, undefined, 'impersonation', imp.impersonatorId, imp.token)
    this.oauth = emptyOAuth()
    this.journal.clear()
    this.changes.take()
    this.horizon = 0
    this.outbox.clear()
    this.overrides.clear()
    this.active = []
    this.ids = new Sequence()
    this.scenarioState.clear()
    this.#reseed(seed, 0)
    this.#base = seed
    this.setKey(newSigningKey())
    this.repro.begin(this)
    this.changed('reset')
  }

  /** The records; every write to them is told to `changes`. */
  get world(): World {
    return this.#world
  }

  set world(world: World) {
    this.#world = world
    for (const table of Object.values(world.tables)) table.recorder = this.#recorder
    world.notifications.recorder = this.#recorder
  }

  /** Where the stores tell their writes: none with `changes: false`. */
  get #recorder(): ChangeRecorder | undefined {
    return this.config.changes === false ? undefined : this.changes
  }

  get sessions(): SessionStore {
    return this.#sessions
  }

  set sessions(sessions: SessionStore) {
    this.#sessions = sessions
    sessions.recorder = this.#recorder
  }

  /** Tells the event streams that the state changed (`event: state`). */
  changed(change: StateChange): void {
    this.repro.changed(this, change)
    for (const w of this.#watchers) w(change)
    if (this.events.size) this.events.emit({ type: 'state', data: { change, seed: this.seed, now: this.iso(), scenarios: this.inForce().map((a) => a.name) } })
  }

  /** Follows state changes as they happen (reset, restore, scenarios, clock); returns the unsubscribe. */
  watch(watcher: (change: StateChange) => void): () => void {
    this.#watchers.add(watcher)
    return () => void this.#watchers.delete(watcher)
  }

  get draws(): number {
    return this.#draws
  }

  get recordsBase(): number | null {
    return this.#base
  }

  get signingKeyHex(): string {
    return this.#key
  }

  #reseed(seed: number, draws: number): void {
    this.#generator = seededRandom(seed)
    for (let i = 0; i < draws; i++) this.#generator()
    this.#draws = draws
  }

  /**
   * Puts stored parts back (the persistence port, `src/core/persist`): what a runtime kept of
   * this sandbox. `records` replaces the world with rows no seed reproduces; without it the
   * world stays as it is (seeded, perhaps with stored changes applied to it).
   */
  async resume(parts: ResumedParts): Promise<void> {
    // What happened before it was stored is not in this process: no bundle until the next reset.
    if (Object.keys(parts).length) this.repro.stop('the sandbox was resumed from stored state (--state, a reload in the browser, a Durable Object\'s storage)')
    if (parts.records) {
      this.world = await World.fromRows(parts.records, undefined, true)
      this.#base = null
    }
    if (parts.seed !== undefined) this.seed = parts.seed
    if (parts.clock) this.clock = new Clock(parts.clock.now, Date.now, parts.clock.frozen)
    if (parts.sessions) this.sessions = new SessionStore(parts.sessions)
    if (parts.oauth) this.oauth = parts.oauth
    if (parts.journal) this.journal.load(parts.journal)
    if (parts.outbox) this.outbox.load(parts.outbox)
    if (parts.scenarios) this.active = parts.scenarios
    if (parts.scenarioState) this.scenarioState = parts.scenarioState
    if (parts.overrides) this.overrides.load(parts.overrides)
    if (parts.ids !== undefined) this.ids.value = parts.ids
    if (parts.draws !== undefined) this.#reseed(this.seed, parts.draws)
    if (parts.signingKey) this.setKey(parts.signingKey)
    // Stored writes put back are no request's changes.
    this.changes.take()
  }

  setKey(hex: string): void {
    this.#key = hex
    this.signingKey = keyBytes(hex)
  }

  /**
   * Every scenario entry with its window (`GET /__sandbox/scenarios` `schedule`): what snapshots,
   * saved states and storage keep. Which of them shape answers now is `inForce()`.
   */
  get active(): ActiveScenario[] {
    return this.#schedule
  }

  set active(list: ActiveScenario[]) {
    this.#schedule = list
    this.#timed = list.some(timed)
    this.#lookedAt = this.clock?.now()
  }

  /**
   * The entries whose window holds the clock's now, one per name (the later entry wins). A
   * window entered since the last look turns its scenario on as a PUT would: fresh bookkeeping,
   * its `activate` hook (session-expired expires the sessions of that moment).
   */
  inForce(): ActiveScenario[] {
    if (!this.#timed) return this.#schedule
    const now = this.clock.now()
    const before = this.#lookedAt ?? now
    this.#lookedAt = now
    const list = this.#schedule.filter((a) => inWindow(a, now))
    for (const a of list) if (entered(a, before, now)) this.#turnOn(a)
    return list.filter((a, i) => !list.slice(i + 1).some((b) => b.name === a.name))
  }

  #turnOn(scenario: ActiveScenario): void {
    this.scenarioState.delete(scenario.name)
    this.shared.scenarios.get(scenario.name)?.activate?.(this, scenario.options)
  }

  /**
   * Replaces the schedule (`PUT /__sandbox/scenarios`): windows are fixed on the clock now
   * (`+2m` counts from now), all checked before anything changes (400 naming `field.i`). An
   * entry replaces an earlier one of the same name and window; those in force now turn on.
   */
  setScenarios(list: ActiveScenario[], field = 'active'): void {
    const now = this.clock.now()
    const fixed = list.map((a, i) => fixWindow(a, now, `${field}.${i}`))
    const same = (a: ActiveScenario, b: ActiveScenario) => a.name === b.name && (a.from ?? null) === (b.from ?? null) && (a.until ?? null) === (b.until ?? null)
    this.scenarioState.clear()
    this.active = fixed.filter((a, i) => !fixed.slice(i + 1).some((b) => same(a, b)))
    for (const a of this.active) if (inWindow(a, now)) this.#turnOn(a)
    this.changed('scenarios')
  }

  /**
   * Replaces these collections of the world with fixture rows (`--watch`, docs/your-own-answers.md):
   * every other collection, the clock, sessions, scenarios, journal and outbox stay. Checked
   * first (a 400 naming the collection and record); nothing changes on a refusal.
   */
  async replaceCollections(input: FixtureRows): Promise<void> {
    const fixtures = parseFixtures(input)
    await this.exclusive(async () => {
      for (const [name, rows] of Object.entries(fixtures.rows)) if (name !== 'notifications') await this.world.tables[name as TableName].load(rows as never, true)
      // Each world its own store: a write in one is never seen in another.
      if (fixtures.rows.notifications) (this.world.notifications = indexNotifications(fixtures.rows.notifications)).recorder = this.#recorder
      // No patch holds the replaced rows: a rewind stops here.
      this.horizon = this.journal.nextId
    })
    // A reset of this world brings the new rows back, not the old ones.
    this.config.fixtures = { ...this.config.fixtures, ...input }
    this.changed('fixtures')
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
      signingKey: this.#key,
      overrides: this.overrides.list(),
      oauth: this.oauth,
    }
  }

  /** Replaces the whole state with a snapshot; a malformed one is a 400 naming the field and changes nothing. */
  async restore(snapshot: unknown): Promise<void> {
    if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot)) throw badRequest('body: a snapshot must be a JSON object keyed by collection name')
    checkBounds(snapshot as Record<string, unknown>, this.journal.capacity)
    const s = validate(snapshotSchema, snapshot, 'body') as unknown as Snapshot
    const now = Date.parse(s.clock.now)
    const scenarios = s.scenarios.map((a, i) => fixWindow(this.shared.scenarios.parse(a, `scenarios.${i}`), now, `scenarios.${i}`))
    // Checked here with a schema loaded on first use (the browser entry's budget).
    const overrides = s.overrides?.length ? (await import('../overrides/override.js')).storedOverrides(s.overrides) : []
    this.overrides.fits(overrides)
    const oauth = s.oauth ?? emptyOAuth()
    // Everything is built before anything is replaced.
    let world: World
    try {
      world = await World.fromRows(s)
    } catch (error) {
      throw badRequest(`body: a record does not match its collection (${(error as Error).message})`)
    }
    this.world = world
    this.seed = s.seed
    this.clock = new Clock(now, Date.now, s.clock.frozen)
    this.sessions = new SessionStore(s.sessions)
    this.oauth = oauth
    this.journal.load(s.journal)
    this.horizon = this.journal.nextId
    this.outbox.load(s.outbox)
    this.overrides.load(overrides)
    this.active = scenarios
    this.ids.value = s.nextId
    this.scenarioState.clear()
    this.#reseed(s.seed, 0)
    this.#base = null
    // A snapshot from before keys were kept gets a new one (its tokens were forgeable anyway).
    this.setKey(s.signingKey ?? newSigningKey())
    this.changed('restore')
  }

  /**
   * Takes over a world a replay built (`POST /__sandbox/repro`, src/core/repro/replay.ts): its
   * records, clock, sessions, outbox, scenarios, overrides, journal and repro log. Built apart and
   * taken only once it matched, so a failed replay changes nothing here.
   */
  adopt(other: Sandbox): void {
    this.config = other.config
    this.seededAt = other.seededAt
    this.world = other.world
    this.seed = other.seed
    this.clock = other.clock
    this.sessions = other.sessions
    this.outbox.load(other.outbox.list())
    this.overrides.load(other.overrides.list())
    this.active = other.active
    this.ids.value = other.ids.value
    this.scenarioState = other.scenarioState
    this.#generator = other.#generator
    this.#draws = other.#draws
    // Seed plus requests: stored whole from here (the persistence port), as after a restore.
    this.#base = null
    this.setKey(other.#key)
    this.repro.release()
    this.repro = other.repro
    this.journal.clear()
    for (const d of other.journal.details()) {
      const { request, response, url, id: _, ...entry } = d
      this.journal.add(entry, { origin: url.slice(0, url.length - d.path.length - d.query.length), request, response })
    }
    other.journal.clear()
    this.changed('replay')
  }
}

