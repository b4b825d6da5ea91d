import type { UnhandledRequestStrategy } from 'msw'
import { type SetupServer, setupServer } from 'msw/node'
import { SandboxApp } from '../core/app.js'
import { parseScenario, parseScenarioList, type Sandbox } from '../core/sandbox.js'
import type { ActiveScenario } from '../core/scenarios/define.js'
import type { Size } from '../core/seed/index.js'
import { createHandlers } from '../msw/handlers.js'

export type { ActiveScenario } from '../core/scenarios/define.js'
export type { Sandbox } from '../core/sandbox.js'
export type { Size } from '../core/seed/index.js'
export { SandboxApp } from '../core/app.js'
export { createHandlers } from '../msw/handlers.js'

/** A scenario by name, or with options: `'rate-limited'`, `{ name: 'slow', options: { ms: 300 } }`. */
export type ScenarioInput = string | { name: string; options?: Record<string, unknown> }

export interface SandboxServerOptions {
  /** Seed of the generated data (default 1). */
  seed?: number
  /** ISO date-time the sandbox clock starts at (default: the real time). */
  now?: string
  /** Scenarios active at start and after every `reset()`: `'a,b'` or a list. */
  scenario?: string | ScenarioInput[]
  /** `small` (default here: tests start fast), `medium` or `large`. */
  size?: Size
  /** Exact number of notifications of the demo client, instead of `size`. */
  notifications?: number
  /** Origins to answer (`http://api.test`); default: `/api/...` and `/__sandbox/...` on any origin. */
  origins?: string[]
  /** Who calls when there is no token (the `rate-limited` key); default `127.0.0.1`. */
  clientAddress?: string
  /** Serve only what the spec documents. */
  strict?: boolean
  /** What MSW does with requests no route matches (default `warn`). */
  onUnhandledRequest?: UnhandledRequestStrategy
}

export interface SandboxServer {
  /** The msw/node server, for `server.use(...)` overrides of your own. */
  readonly server: SetupServer
  readonly app: SandboxApp
  /** Starts intercepting and seeds the world: `beforeAll(sandbox.listen)`. */
  listen(): Promise<void>
  /** Stops intercepting: `afterAll(sandbox.close)`. */
  close(): void
  /** Back to the configured world (seed and scenarios), drops `x-sandbox-id` worlds and `server.use` overrides: `afterEach(sandbox.reset)`. */
  reset(): Promise<void>
  /** Exactly these scenarios are active until the next `reset()`; none is healthy. */
  use(...scenarios: ScenarioInput[]): void
  /** The default sandbox: journal, outbox, clock, records. */
  sandbox(): Sandbox
  /** The sandbox an `x-sandbox-id` selects (created from the same seed on first use). */
  isolated(id: string): Promise<Sandbox>
}

/**
 * The sandbox as the test double of a vitest or jest suite: `msw/node` answers the API in the
 * test process with the same handlers as the server and the browser worker.
 */
export function setupSandboxServer(options: SandboxServerOptions = {}): SandboxServer {
  const seed = options.seed ?? 1
  const scenarios = scenarioList(options.scenario)
  const app = new SandboxApp({ seed, now: options.now, size: options.notifications === undefined ? (options.size ?? 'small') : undefined, notifications: options.notifications, scenarios, strict: options.strict, control: {} })
  const server = setupServer(...createHandlers(app, { origins: options.origins, clientAddress: options.clientAddress ?? '127.0.0.1' }))
  let ready: Sandbox | undefined

  const current = (): Sandbox => {
    if (!ready) throw new Error('fleet-sandbox/node: call `await listen()` first (beforeAll(sandbox.listen))')
    return ready
  }

  return {
    server,
    app,
    async listen() {
      ready = await app.ready()
      server.listen({ onUnhandledRequest: options.onUnhandledRequest ?? 'warn' })
    },
    close() {
      server.close()
    },
    async reset() {
      server.resetHandlers()
      const sandbox = current()
      await sandbox.reset(seed)
      sandbox.setScenarios(scenarios)
      for (const id of app.sandboxes.ids()) app.sandboxes.drop(id)
    },
    use(...list) {
      current().setScenarios(list.map((s, i) => parseScenario(s, `use.${i}`)))
    },
    sandbox: current,
    isolated: (id) => app.sandboxes.get(id),
  }
}

function scenarioList(input: string | ScenarioInput[] | undefined): ActiveScenario[] {
  if (typeof input === 'string') return parseScenarioList(input, 'scenario')
  return (input ?? []).map((s, i) => parseScenario(s, `scenario.${i}`))
}
