import type { ScenarioDefinition } from '../scenarios/define.js'
import { ScenarioRegistry } from '../scenarios/registry.js'
import { Sandbox, type SandboxConfig, type SandboxRegistry, type SandboxShared } from './sandbox.js'
import { SeededWorlds } from './seeded-worlds.js'
import type { ListPages } from '../notifications/notification-store.js'
import { OverridesBudget } from '../overrides/overrides.js'
import { JournalBudget } from './journal-budget.js'
import { type FixtureRows, parseFixtures } from '../store/fixtures.js'

export interface SandboxesOptions extends SandboxConfig {
  /** Every scenario the sandboxes know (the adapters pass the files of `scenarios/`). */
  scenarioDefinitions: readonly ScenarioDefinition[]
  /**
   * Writes the notifications' list pages for every sandbox of the app: the assembler passes the
   * tuned `PageWriter` (src/core/notifications/page.ts), a new one per app.
   */
  pages: ListPages
  /**
   * Isolated sandboxes unused this long (real milliseconds, not the sandbox clock, which tests
   * move at will) are dropped with their state; default 30 minutes.
   */
  sandboxIdleMs?: number
  /** At most this many isolated sandboxes; the least recently used goes first (default 200). */
  maxSandboxes?: number
  /** Bytes all journals may hold together, oldest entries out first across sandboxes (default 64 MB). */
  journalsMaxBytes?: number
  /** Bytes the overrides of all sandboxes may hold together, as JSON (default 32 MB); past it adding one is a 413. */
  overridesMaxBytes?: number
  /** Where an eviction is told (one line each); the app's request log. */
  log?: (line: string) => void
  /**
   * Serve this one sandbox, named so, whatever a request selects (a Durable Object holds one
   * sandbox; the Worker in front of it routes by `x-sandbox-id`). The id is still validated.
   */
  only?: string
  /** The sandboxes beside `only`'s, where they live elsewhere (a Durable Object's directory); default: these. */
  registry?: SandboxRegistry
}

// Light, so fleet-sandbox/ssr and /playwright can use them without the whole core.
export { SANDBOX_ID_COOKIE, SANDBOX_ID_HEADER, sandboxIdOf, validSandboxId } from './sandbox-id.js'
const DEFAULT_IDLE_MS = 30 * 60_000
const DEFAULT_MAX = 200

interface Isolated {
  pending: Promise<Sandbox>
  createdAt: number
  lastUsed: number
  /** Requests being answered: a sandbox is never dropped under one. */
  inflight: number
}

/** A sandbox dropped without being asked to: idle too long, or the least recently used past `maxSandboxes`. */
export interface Eviction {
  id: string
  reason: 'idle' | 'capacity'
  at: string
}

/** Evictions kept for `GET /__sandbox/sandboxes`, newest last. */
/** How many evictions `GET /__sandbox/sandboxes` lists (the latest). */
export const EVICTIONS_KEPT = 100

/** The log line of an eviction, the Node server's registry and the Workers directory alike. */
export function evictionLine(
  id: string,
  reason: Eviction['reason'],
  bounds: { idleMs: number; maxSandboxes: number },
): string {
  const why =
    reason === 'idle'
      ? `unused for ${bounds.idleMs / 1000} s (--sandbox-idle)`
      : `the least recently used of ${bounds.maxSandboxes} (--max-sandboxes)`
  return `sandbox "${id}" evicted with its state: ${why}`
}

export interface IsolatedInfo {
  id: string
  createdAt: string
  lastUsedAt: string
  idleMs: number
}

/** The default sandbox and every isolated one, created on first use by forking the seeded base. */
export class Sandboxes implements SandboxRegistry {
  readonly default: Promise<Sandbox>
  readonly shared: SandboxShared & { scenarios: ScenarioRegistry }
  /** Map order is recency: the least recently used comes first. */
  #isolated = new Map<string, Isolated>()
  #evictions: Eviction[] = []
  #evicted = 0

  constructor(
    readonly options: SandboxesOptions,
    private readonly realNow: () => number = Date.now,
  ) {
    this.shared = {
      scenarios: new ScenarioRegistry(options.scenarioDefinitions),
      worlds: new SeededWorlds(options.accounts),
      pages: options.pages,
      journals: new JournalBudget(options.journalsMaxBytes),
      overrides: new OverridesBudget(options.overridesMaxBytes),
    }
    this.default = Sandbox.create(options.only ?? 'default', options, this.shared).then(
      (s) => ((s.registry = options.registry ?? this), s),
    )
  }

  get idleMs(): number {
    return this.options.sandboxIdleMs ?? DEFAULT_IDLE_MS
  }

  get maxSandboxes(): number {
    return Math.max(1, this.options.maxSandboxes ?? DEFAULT_MAX)
  }

  /** How many sandboxes were evicted since start, and the latest of them. */
  evicted(): { count: number; recent: Eviction[] } {
    return { count: this.#evicted, recent: this.#evictions.slice() }
  }

  /** The sandbox for `id`; call `release` with it once the request is answered. */
  async acquire(id: string | undefined): Promise<Sandbox> {
    this.#sweep()
    if (id === undefined || id === '' || id === 'default' || this.options.only !== undefined) return this.default
    const now = this.realNow()
    let entry = this.#isolated.get(id)
    if (entry) this.#isolated.delete(id)
    else {
      // Registered before any await, so racing first requests share one sandbox.
      entry = { pending: this.#create(id), createdAt: now, lastUsed: now, inflight: 0 }
      this.#trim()
    }
    this.#isolated.set(id, entry)
    entry.lastUsed = now
    entry.inflight++
    try {
      return await entry.pending
    } catch (error) {
      entry.inflight--
      if (this.#isolated.get(id) === entry) this.#isolated.delete(id)
      throw error
    }
  }

  release(sandbox: Sandbox): void {
    const entry = this.#isolated.get(sandbox.id)
    if (!entry) return
    entry.inflight = Math.max(0, entry.inflight - 1)
    entry.lastUsed = this.realNow()
  }

  /** Same as acquire + release: for callers outside a request. */
  async get(id: string | undefined): Promise<Sandbox> {
    const sandbox = await this.acquire(id)
    this.release(sandbox)
    return sandbox
  }

  list(): IsolatedInfo[] {
    const now = this.realNow()
    return [...this.#isolated].map(([id, e]) => ({
      id,
      createdAt: new Date(e.createdAt).toISOString(),
      lastUsedAt: new Date(e.lastUsed).toISOString(),
      idleMs: now - e.lastUsed,
    }))
  }

  ids(): string[] {
    return [...this.#isolated.keys()]
  }

  /**
   * `--watch`: collections of changed fixture files, in every world from now on (resets and new
   * sandboxes too) and in each world alive now, whose other state stays (Sandbox.replaceCollections).
   */
  async replaceFixtures(rows: FixtureRows): Promise<void> {
    parseFixtures(rows)
    // A new object: checked fixtures are kept per object (parseFixtures), and the seeded worlds with them.
    this.options.fixtures = { ...this.options.fixtures, ...rows }
    const live = [this.default, ...[...this.#isolated.values()].map((e) => e.pending)]
    for (const sandbox of await Promise.all(live)) await sandbox.replaceCollections(rows)
  }

  drop(id: string): boolean {
    const entry = this.#isolated.get(id)
    if (entry) this.#remove(id, entry)
    return entry !== undefined
  }

  /** Forgets a sandbox; its event streams end, so no client keeps listening to a world that is gone. */
  #remove(id: string, entry: Isolated): void {
    this.#isolated.delete(id)
    // Its journal's and overrides' bytes leave the app's budgets with it, and its conduct lets go of what waited for the judge.
    entry.pending.then(
      (s) => (s.events.end(), s.journal.clear(), s.repro.release(), s.overrides.clear(), s.conduct?.clear()),
      () => undefined,
    )
  }

  async #create(id: string): Promise<Sandbox> {
    const base = await this.default
    // Same seed and the same seeded instant as the default: a fork of the cached rows, not a re-seed.
    const sandbox = await Sandbox.create(id, { ...this.options, seed: base.seed, seededAt: base.seededAt }, this.shared)
    sandbox.registry = this
    return sandbox
  }

  /** Drops sandboxes idle past `sandboxIdleMs`; runs on every request, so no timer is needed. */
  #sweep(): void {
    const cutoff = this.realNow() - this.idleMs
    for (const [id, e] of this.#isolated) {
      if (e.lastUsed < cutoff && e.inflight === 0) this.#evict(id, 'idle')
    }
  }

  #trim(): void {
    const max = this.maxSandboxes
    for (const [id, e] of this.#isolated) {
      if (this.#isolated.size < max) break
      if (e.inflight === 0) this.#evict(id, 'capacity')
    }
  }

  /** Another caller's state can go this way (any new x-sandbox-id counts): say so, in the log and the list. */
  #evict(id: string, reason: Eviction['reason']): void {
    this.#remove(id, this.#isolated.get(id)!)
    this.#evicted++
    this.#evictions.push({ id, reason, at: new Date(this.realNow()).toISOString() })
    if (this.#evictions.length > EVICTIONS_KEPT) this.#evictions.shift()
    this.options.log?.(evictionLine(id, reason, this))
  }
}
