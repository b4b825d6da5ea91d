import type { SandboxSummary } from '../core/sandbox/summary.js'
import type { ServerOptions } from '../adapters/server/index.js'
import type { ScenarioDefinition } from '../core/scenarios/define.js'
import type { FixtureRows } from '../core/store/fixtures.js'

/**
 * One engine as the command line drives it, so the banner, the request log, `--state`, the
 * port errors and the stop are one code path for `--engine node` and `--engine workerd`.
 */
export interface Served {
  url: string
  /** A line the banner adds for this engine (none for the default). */
  engineLine?: string
  /** The default sandbox, as the banner shows it. */
  summary(): Promise<SandboxSummary>
  /** The default sandbox's whole state (`--state` on exit). */
  snapshot(): Promise<unknown>
  /** The same as JSON text (`--state` as the world changes). */
  snapshotText(): Promise<string>
  /** A mark that moves when the default sandbox's state may have changed (src/core/sandbox/change-count.ts). */
  changes(): Promise<string>
  /** The mark once the saved state was restored, before the port opened. */
  startMark: string
  close(): Promise<void>
  /** What `--watch` reloads into (watch.ts). */
  reload: Reload
}

export interface Reload {
  /** A changed fixture file: its collection replaced in every world alive and every world made from now on. */
  fixtures(rows: FixtureRows): Promise<void>
  /** A changed or added scenario file (`files`: every scenario file, this one included). */
  scenario(definition: ScenarioDefinition, files: readonly string[]): Promise<void>
}

export interface EngineOptions extends Omit<ServerOptions, 'beforeListen'> {
  persist?: string
  /** Your scenario files (`--scenarios DIR`), for an engine that loads them itself (workerd). */
  scenarioFiles?: readonly string[]
  /** How long a hook of theirs may take (`--scenario-timeout`), for an engine that loads them itself. */
  scenarioTimeoutMs?: number
  /** The default sandbox, seeded and not yet listening: `--state` is restored here. */
  beforeListen(sandbox: { restore(state: unknown, why?: string): Promise<void> }): Promise<void>
}

export type StartEngine = (options: EngineOptions) => Promise<Served>
