import type { OAuthState } from '../agents/state.js'
import type { SessionStore } from '../auth/sessions.js'
import type { Overrides } from '../overrides/overrides.js'
import type { ActiveScenario } from '../scenarios/types.js'
import type { Accounts, Size } from '../seed/seed.js'
import type { FixtureRows } from '../store/fixtures.js'
import type { World } from '../store/world.js'
import type { ChangeRecorder } from '../store/changes.js'
import type { Clock } from '../clock/clock.js'
import type { Journal } from './journal.js'
import type { Outbox } from './outbox.js'
import type { Sequence } from '../clock/random.js'

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
  /** `false`: the app's conduct is not judged (`--no-conduct`: what judging costs; docs/conduct.md). */
  conduct?: boolean
}

/**
 * What a sandbox holds, as its parts (parts.ts: snapshots, resets, rewinds) and its repro log read
 * and write it. The Sandbox (sandbox.ts) is one; it owns both, so they name it by this.
 */
export interface SandboxParts {
  readonly config: SandboxConfig
  readonly shared: { readonly scenarios: { parse(input: unknown, field?: string): ActiveScenario } }
  seed: number
  world: World
  sessions: SessionStore
  clock: Clock
  outbox: Outbox
  journal: Journal
  readonly overrides: Overrides
  readonly changes: ChangeRecorder
  oauth: OAuthState
  ids: Sequence
  active: ActiveScenario[]
  /** Replaces the schedule as PUT /__sandbox/scenarios does: those in force turn on. */
  setScenarios(list: ActiveScenario[]): void
  scenarioState: Map<string, unknown>
  /** The first journal entry a rewind may reach. */
  horizon: number
  readonly draws: number
  readonly signingKeyHex: string
  setKey(hex: string): void
  reseed(draws: number): void
  markRecordsWhole(): void
  iso(): string
}
