import type { SandboxSummary } from '../../core/sandbox/summary.js'
import type { ServerOptions } from '../../adapters/server/index.js'
import type { SandboxApp } from '../../core/app/app.js'

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
  close(): Promise<void>
  /** The app in this process (the Node engine): what `--watch` reloads into. */
  app?: SandboxApp
}

export interface EngineOptions extends Omit<ServerOptions, 'beforeListen'> {
  persist?: string
  /** The default sandbox, seeded and not yet listening: `--state` is restored here. */
  beforeListen(sandbox: { restore(state: unknown): Promise<void> }): Promise<void>
}

export type StartEngine = (options: EngineOptions) => Promise<Served>
