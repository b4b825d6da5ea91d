import type { JournalEntry } from '../sandbox/journal.js'
import type { OutboxEntry, OutboxKind } from '../sandbox/outbox.js'
import type { OperationId } from '../../../generated/api/operation-ids.js'

/**
 * The one admin interface every entry hands out (WireMock's `Admin` is the model): the node
 * entry's `admin`, the browser's and Storybook's `admin`, Playwright's `sandbox` fixture. Each
 * call is a call of the control API (docs/control-api.md) on one world, with its checks and its
 * 4xx; the implementation is `AdminClient` (client.ts) over that entry's way of sending.
 */
export interface Admin<Scenario = AnyScenario> {
  health(): Promise<Health>
  /** Fresh data (the same seed unless given); scenarios, clock, journal and outbox cleared. */
  reset(seed?: number): Promise<Health>
  /** Exactly these scenarios, windows included (`from`, `until` on the sandbox clock, as `'+2m'`); none is healthy. */
  use(...scenarios: Scenario[]): Promise<ScheduleEntry[]>
  scenarios(): Promise<{ scenarios: ScenarioInfo[]; schedule: ScheduleEntry[] }>
  clock(): Promise<{ now: string; frozen: boolean }>
  /** `'31d'`, `'2m'` or seconds, as `POST /__sandbox/clock {advanceBy}`. */
  advanceClock(by: string | number): Promise<{ now: string; frozen: boolean }>
  /** An ISO date-time; `freeze` stops the clock there (or lets it run again with false). */
  setClock(at: string, freeze?: boolean): Promise<{ now: string; frozen: boolean }>
  /** The request journal, oldest first. */
  journal(): Promise<JournalEntry[]>
  clearJournal(): Promise<void>
  /** E-mails, messages, tokens, uploads: `outbox({ kind: 'email' })`. */
  outbox(filter?: { kind?: OutboxKind; to?: string }): Promise<OutboxEntry[]>
  clearOutbox(): Promise<void>
  /** One answer of your own for a route, in this world: `POST /__sandbox/overrides`; the 201 with its id and findings. */
  override(override: OverrideInput): Promise<OverrideInfo>
  overrides(): Promise<OverrideInfo[]>
  /** One override by id or name; without one, every override of this world. */
  removeOverride(idOrName?: string): Promise<void>
}

/** What `use` takes when an entry does not narrow it: a name, or a name with options. */
export type AnyScenario = string | { name: string; options?: Record<string, unknown> }

/**
 * An `Admin` whose implementation is loaded on its first call: the browser entry hands one out
 * without carrying the client in what a page loads first (its gzip budget, test/browser/sandbox.test.ts).
 * A new operation of Admin left out here is a type error.
 */
export function lazyAdmin<Scenario>(load: () => Promise<Admin<Scenario>>): Admin<Scenario> {
  let loaded: Promise<Admin<Scenario>> | undefined
  const admin = () => (loaded ??= load())
  return {
    health: async () => (await admin()).health(),
    reset: async (seed) => (await admin()).reset(seed),
    use: async (...scenarios) => (await admin()).use(...scenarios),
    scenarios: async () => (await admin()).scenarios(),
    clock: async () => (await admin()).clock(),
    advanceClock: async (by) => (await admin()).advanceClock(by),
    setClock: async (at, freeze) => (await admin()).setClock(at, freeze),
    journal: async () => (await admin()).journal(),
    clearJournal: async () => (await admin()).clearJournal(),
    outbox: async (filter) => (await admin()).outbox(filter),
    clearOutbox: async () => (await admin()).clearOutbox(),
    override: async (override) => (await admin()).override(override),
    overrides: async () => (await admin()).overrides(),
    removeOverride: async (idOrName) => (await admin()).removeOverride(idOrName),
  }
}

/** The answers of the control API, as its routes write them (docs/contract.md, docs/control-api.md). */
export interface Health {
  status: 'ok'
  seed: number
  now: string
  scenarios: string[]
  sandbox: string
}

export interface ScheduleEntry {
  name: string
  options: Record<string, unknown>
  from: string | null
  until: string | null
}

export interface ScenarioInfo {
  name: string
  description: string
  options: Record<string, unknown>
  active: boolean
}

/** What `override()` takes (docs/your-own-answers.md): the body of `POST /__sandbox/overrides`. */
export interface OverrideInput {
  match: {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD'
    /** A route of the table with `{params}`, or a concrete path; or give `operation` instead. */
    path?: string
    /** The route's operation id (docs/routes.md): a typo is a type error. */
    operation?: OperationId
    query?: Record<string, string | string[]>
    headers?: Record<string, string>
    /** A JSON subset the request body must contain. */
    body?: unknown
    /** Answer before auth runs (default: auth first). */
    anonymous?: boolean
  }
  respond:
    | { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }
    | { error: 'network'; delayMs?: number }
  /** Answers this many times, then steps aside. */
  times?: number
  /** A window on the sandbox clock: ISO or `+N` with s, m, h or d. */
  from?: string
  until?: string
  /** Higher wins first; the newest among equals. */
  priority?: number
  name?: string
}

/** An override as the sandbox keeps it, with how often it answered. */
export interface OverrideInfo extends Omit<OverrideInput, 'from' | 'until' | 'name' | 'times' | 'priority'> {
  id: string
  name: string | null
  operation: string
  times: number | null
  used: number
  remaining: number | null
  from: string | null
  until: string | null
  priority: number
  createdAt: string
  /** Differences between the answer and the served document (the bridge's checker), on creation. */
  findings?: { kind: string; pointer: string; expected?: unknown; actual?: unknown }[]
}
