import { SessionStore } from '../auth/sessions.js'
import { keyBytes } from '../auth/tokens.js'
import { badRequest } from '../http/reply.js'
import { validate } from '../http/validate.js'
import * as z from 'zod'
import type { ActiveScenario, ScenarioFacts } from '../scenarios/types.js'
import { entered, fixWindow, inWindow, timed } from '../scenarios/window.js'
import type { SandboxConfig } from './types.js'
import { type FixtureRows, parseFixtures } from '../store/fixtures.js'
import type { World } from '../store/world.js'
import type { Clock } from '../clock/clock.js'
import { Journal } from './journal.js'
import type { JournalBudget } from './journal-budget.js'
import { Outbox } from './outbox.js'
import { Conduct } from '../conduct/conduct.js'
import { ChangeRecorder } from '../store/changes.js'
import { Overrides, OverridesBudget } from '../overrides/overrides.js'
import { SandboxEvents, type StateChange } from './events.js'
import { ReproBudget, ReproLog } from '../time-travel/repro-log.js'
import { type OAuthState, emptyOAuth } from '../agents/state.js'
import { seededRandom, Sequence } from '../clock/random.js'
import type { SeededWorlds } from './seeded-worlds.js'
import type { ListPages } from '../notifications/notification-store.js'
import { type Snapshot, checkBounds } from './snapshot.js'
import { WORLD_PARTS, readParts, writeParts } from './parts.js'

export type { SandboxState, Snapshot } from './snapshot.js'
export type { SandboxConfig, SandboxParts } from './types.js'

/** What a runtime kept of a sandbox, put back by `Sandbox.resume`: snapshot fields; absent parts stay as they are. */
export type ResumedParts = Record<string, unknown>

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

const standalone: SandboxRegistry = {
  idleMs: 0,
  maxSandboxes: 0,
  list: () => [],
  drop: () => false,
  evicted: () => ({ count: 0, recent: [] }),
}

/**
 * What a sandbox asks of the scenarios its app knows: the app's ScenarioRegistry
 * (src/core/scenarios/registry.ts), whose definitions' hooks get a sandbox, so it is named here by what it does.
 */
export interface KnownScenarios {
  get(name: string):
    | {
        activate?(sandbox: Sandbox, options: Record<string, unknown>): void
        pinned?(options: Record<string, unknown>, status: number): Record<string, unknown>
      }
    | undefined
  list(): readonly ScenarioFacts[]
  parse(input: unknown, field?: string): ActiveScenario
  parseList(text: string, field: string): ActiveScenario[]
}

/** What every sandbox of one app shares: the scenarios it knows and its seeded worlds. */
export interface SandboxShared {
  scenarios: KnownScenarios
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
  /** The writes of the request running, taken for its journal entry (`changes`, store/changes.ts). */
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
  /** What a repro bundle is made of (`GET /__sandbox/repro`, src/core/time-travel). */
  repro: ReproLog
  /** The app's conduct judged on this world's requests (docs/conduct.md); none with `conduct: false`. */
  readonly conduct: Conduct | undefined
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
    this.conduct = config.conduct === false ? undefined : new Conduct()
    this.journal = new Journal(
      config.journalCapacity,
      undefined,
      (data) => this.events.emit({ type: 'request', data }),
      shared.journals,
    )
  }

  static async create(id: string, config: SandboxConfig, shared: SandboxShared): Promise<Sandbox> {
    const sandbox = new Sandbox(id, config, shared)
    await sandbox.reset(config.seed)
    if (config.scenarios?.length) sandbox.setScenarios(config.scenarios, 'scenario')
    // The world begins here: the scenarios it was started with are the bundle's, not a step.
    sandbox.repro.begin(sandbox)
    return sandbox
  }

  /** Fresh data for `seed`: every part of the world as in a new one (parts.ts). */
  async reset(seed = this.seed): Promise<void> {
    const world = await this.seededWorld(seed)
    this.seed = seed
    this.world = world
    for (const part of WORLD_PARTS) part.reset(this)
    // What the app did in the world before: judged with it, cleared with it.
    this.conduct?.clear()
    this.changes.take()
    this.#base = seed
    this.repro.begin(this)
    this.changed('reset')
  }

  /** The records a reset to `seed` would give, this sandbox unchanged (a provider state checks its params on them first). */
  seededWorld(seed = this.seed): Promise<World> {
    const fixtures = this.config.fixtures && parseFixtures(this.config.fixtures)
    return this.shared.worlds.world(seed, this.seededAt, this.config.size, this.config.notifications, fixtures)
  }

  /** The records; every write to them is told to `changes`. */
  get world(): World {
    return this.#world
  }

  set world(world: World) {
    this.#world = world
    for (const [, table] of world.collections()) table.recorder = this.#recorder
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
    if (this.events.size)
      this.events.emit({
        type: 'state',
        data: { change, seed: this.seed, now: this.iso(), scenarios: this.inForce().map((a) => a.name) },
      })
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

  /** The seeded generator of this seed, `draws` numbers on (a stored or restored world goes on where it was). */
  reseed(draws: number): void {
    this.#generator = seededRandom(this.seed)
    for (let i = 0; i < draws; i++) this.#generator()
    this.#draws = draws
  }

  /** The records are no longer their seed plus changes (a restore, a replay): stores keep every one. */
  markRecordsWhole(): void {
    this.#base = null
  }

  /**
   * Puts stored parts back (the persistence port, `src/core/persist`): what a runtime kept of
   * this sandbox, as snapshot fields. `records` (the collections) replace the world with rows no
   * seed reproduces; without them the world stays as it is (seeded, perhaps with stored changes
   * applied to it).
   */
  async resume(parts: ResumedParts): Promise<void> {
    const present = WORLD_PARTS.filter((p) => p.fields.some((f) => parts[f] !== undefined))
    // The runtime's own stored state: trusted, as it wrote it.
    await writeParts(this, parts, true, present)
    // What happened before it was stored is not in this process: the bundle starts from here.
    if (present.length)
      this.repro.rebase(
        this,
        "the sandbox was resumed from stored state (--state, a reload in the browser, a Durable Object's storage)",
      )
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
    const same = (a: ActiveScenario, b: ActiveScenario) =>
      a.name === b.name && (a.from ?? null) === (b.from ?? null) && (a.until ?? null) === (b.until ?? null)
    const before = { active: this.active, state: new Map(this.scenarioState) }
    this.scenarioState.clear()
    this.active = fixed.filter((a, i) => !fixed.slice(i + 1).some((b) => same(a, b)))
    try {
      for (const a of this.active) if (inWindow(a, now)) this.#turnOn(a)
    } catch (error) {
      // An `activate` that throws (your own scenario's, named by src/own-scenarios/guard.ts): the schedule stays as it was.
      this.active = before.active
      this.scenarioState = before.state
      throw error
    }
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
      // Each world its own rows: a write in one is never seen in another.
      await this.world.load(fixtures.rows)
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

  /** The whole state as one JSON object keyed by collection name: every part's fields (parts.ts). */
  snapshot(): Snapshot {
    return { version: 1, ...readParts(this) } as Snapshot
  }

  /**
   * Replaces the whole state with a snapshot; a malformed one is a 400 naming the field and
   * changes nothing. `why`: where it came from, when not `PUT /__sandbox/snapshot` (a repro
   * bundle's base says it).
   */
  async restore(snapshot: unknown, why?: string): Promise<void> {
    if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot))
      throw badRequest('body: a snapshot must be a JSON object keyed by collection name')
    const input = snapshot as Record<string, unknown>
    checkBounds(input, this.journal.capacity)
    validate(z.object({ version: z.literal(1) }), { version: input.version }, 'body')
    // Every part is checked and built before any is replaced.
    await writeParts(this, input)
    // No patch holds the world before the snapshot: a rewind stops here.
    this.horizon = this.journal.nextId
    this.changed('restore')
    if (why) this.repro.rebase(this, why)
  }

  /**
   * Takes over a world a replay built (`POST /__sandbox/repro`, src/core/time-travel/replay.ts): its
   * records, clock, sessions, outbox, scenarios, overrides, journal and repro log. Built apart and
   * taken only once it matched, so a failed replay changes nothing here.
   */
  adopt(other: Sandbox): void {
    this.config = other.config
    this.seededAt = other.seededAt
    for (const part of WORLD_PARTS) part.take(this, other)
    // Seed plus requests: stored whole from here (the persistence port), as after a restore.
    this.#base = null
    this.repro.release()
    this.repro = other.repro
    this.changed('replay')
  }
}
