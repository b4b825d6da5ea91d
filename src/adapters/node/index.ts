import { type SetupServer, setupServer } from 'msw/node'
import type { SandboxApp } from '../../core/app/app.js'
import { createServedApp } from '../../apps/server-app.js'
import { TEST_DOUBLE_SIZE, entryAppOptions } from '../../core/options/options.js'
import { type KnownScenario, type NamedScenario, type ScenarioInput, scenarioList } from '../../own-scenarios/input.js'
import { type MswSandboxOptions, createHandlers, journalOthers } from '../msw/handlers.js'
import { joinHandlers } from '../msw/join.js'
import { entryScenarios } from '../../own-scenarios/entry.js'
import { writePactParts } from './pact-files.js'
import { type SuiteOptions, type SuiteWorld, suiteWorld } from '../../core/admin/suite.js'

export type { ConductOption } from '../../core/admin/conduct.js'
export type { ConductReport } from '../../core/conduct/report.js'

export * from '../public.js'
export { createHandlers } from '../msw/handlers.js'

/** `size` defaults to `small` here (tests start fast) and `onUnhandledRequest` to `warn`. */
export interface SandboxServerOptions<S extends readonly NamedScenario[] = readonly []>
  extends MswSandboxOptions<S>, SuiteOptions {
  /** Who calls when there is no token (the `rate-limited` key); default `127.0.0.1`. */
  clientAddress?: string
  /**
   * Your suite's own `setupServer(...)`, not listening yet: the sandbox joins it (its handlers go
   * first, kept by your `resetHandlers()`), and `listen()` starts it. msw 2 or 3.
   */
  server?: SetupServer
}

/** The suite's worlds (`SuiteWorld`: `use`, `sandbox()`, `isolated`, `override`, `admin`, `conduct`), and msw's server. */
export interface SandboxServer<S extends readonly NamedScenario[] = readonly []> extends SuiteWorld<
  ScenarioInput<KnownScenario<S>>
> {
  /** The msw/node server, for `server.use(...)` overrides of your own. */
  readonly server: SetupServer
  readonly app: SandboxApp
  /** Starts intercepting and seeds the world: `beforeAll(sandbox.listen)`. */
  listen(): Promise<void>
  /** Stops intercepting: `afterAll(sandbox.close)`. */
  close(): void
  /** Back to the configured world (seed and scenarios), drops `x-sandbox-id` worlds and `server.use` overrides: `afterEach(sandbox.reset)`. */
  reset(): Promise<void>
}

const WHO = 'fleet-sandbox/node'

/**
 * The sandbox as the test double of a vitest or jest suite: `msw/node` answers the API in the
 * test process with the same handlers as the server and the browser worker.
 */
export function setupSandboxServer<const S extends readonly NamedScenario[] = readonly []>(
  options: SandboxServerOptions<S> = {},
): SandboxServer<S> {
  const { definitions, known } = entryScenarios(options.scenarios)
  const scenarios = scenarioList(options.scenario, 'scenario', known)
  const appOptions = entryAppOptions(options, scenarios, TEST_DOUBLE_SIZE)
  const app = createServedApp({ ...appOptions, ...(definitions && { scenarioDefinitions: definitions }) })
  // `/mcp` too (a mount the matcher serves): an MCP client in the suite reaches the MCP server (docs/agents.md).
  const claiming = { fetch: app.fetch, journalAnswer: app.journalAnswer.bind(app), matcher: app.matcher }
  const handlers = createHandlers(claiming, {
    origins: options.origins,
    clientAddress: options.clientAddress ?? '127.0.0.1',
  })
  const server = options.server ?? setupServer(...handlers)
  if (options.server) joinHandlers(options.server, handlers)
  journalOthers(server.events, claiming, { origins: options.origins })
  const suite = suiteWorld<ScenarioInput<KnownScenario<S>>>(
    app,
    { pact: options.pact, conduct: options.conduct, seed: appOptions.seed, scenarios },
    WHO,
  )
  return {
    ...suite.world,
    server,
    app,
    async listen() {
      await suite.start()
      const unhandled = options.onUnhandledRequest ?? 'warn'
      // msw 3 calls it onUnhandledFrame; each msw ignores the other's name.
      const listenOptions = { onUnhandledRequest: unhandled, onUnhandledFrame: unhandled }
      server.listen(listenOptions)
    },
    close() {
      server.close()
      if (options.pact) writePactParts(options.pact.dir, suite.pacts())
    },
    async reset() {
      server.resetHandlers()
      await suite.world.reset()
    },
  }
}
