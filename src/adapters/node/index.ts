import { type SetupServer, setupServer } from 'msw/node'
import type { SandboxApp } from '../../core/app/app.js'
import { createServedApp } from '../../apps/server-app.js'
import type { Sandbox } from '../../core/sandbox/sandbox.js'
import { TEST_DOUBLE_SIZE, entryAppOptions } from '../../core/options/options.js'
import { type KnownScenario, type NamedScenario, type ScenarioInput, scenarioList } from '../../own-scenarios/input.js'
import { type MswSandboxOptions, createHandlers, journalOthers } from '../msw/handlers.js'
import { joinHandlers } from '../msw/join.js'
import { type Admin, AdminClient, type OverrideInfo, type OverrideInput, appSend } from '../../core/admin/client.js'
import { entryScenarios } from '../../own-scenarios/entry.js'
import { type PactOption, pactRecorder } from '../../core/admin/pact.js'
import { writePactParts } from './pact-files.js'
import { resetWorlds, useScenarios } from '../../core/admin/life-cycle.js'
import { type ConductOption, conductOption, reportOf, worldsFindings } from '../../core/admin/conduct.js'
import type { ConductReport } from '../../core/conduct/report.js'

export type { ConductOption } from '../../core/admin/conduct.js'
export type { ConductReport } from '../../core/conduct/report.js'

export * from '../public.js'
export { createHandlers } from '../msw/handlers.js'

/** `size` defaults to `small` here (tests start fast) and `onUnhandledRequest` to `warn`. */
export interface SandboxServerOptions<S extends readonly NamedScenario[] = readonly []> extends MswSandboxOptions<S> {
  /** Who calls when there is no token (the `rate-limited` key); default `127.0.0.1`. */
  clientAddress?: string
  /**
   * Your suite's own `setupServer(...)`, not listening yet: the sandbox joins it (its handlers go
   * first, kept by your `resetHandlers()`), and `listen()` starts it. msw 2 or 3.
   */
  server?: SetupServer
  /** Writes the Pact file of the suite's worlds into `dir` on `close()` (every worker's merged; docs/contracts.md). */
  pact?: PactOption
  /**
   * The app's conduct (docs/conduct.md), checked at each `reset()`: `fail` throws with the
   * findings of the worlds the test used (the test fails in its `afterEach`), `warn` prints them,
   * `off` (the default) does not look.
   */
  conduct?: ConductOption
}

export interface SandboxServer<S extends readonly NamedScenario[] = readonly []> {
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
  use(...scenarios: ScenarioInput<KnownScenario<S>>[]): void
  /** The default sandbox: journal, outbox, clock, records. */
  sandbox(): Sandbox
  /** The sandbox an `x-sandbox-id` selects (created from the same seed on first use). */
  isolated(id: string): Promise<Sandbox>
  /** One answer of your own (`POST /__sandbox/overrides`), in the default world or the one `sandboxId` names; `reset()` clears it. */
  override(override: OverrideInput, sandboxId?: string): Promise<OverrideInfo>
  /**
   * The admin interface every entry hands out (docs/control-api.md, "From code"): the control
   * API of the default world, or of the one `sandboxId` names, in process.
   */
  admin(sandboxId?: string): Admin<ScenarioInput<KnownScenario<S>>>
  /** The app's conduct in the default world, or the one `sandboxId` names (docs/conduct.md). */
  conduct(sandboxId?: string): Promise<ConductReport>
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
  let ready: Sandbox | undefined
  const pact = options.pact && pactRecorder(app, options.pact)
  const conduct = conductOption(options.conduct, WHO)

  const admin = (sandboxId?: string) => new AdminClient<ScenarioInput<KnownScenario<S>>>(appSend(app, sandboxId), WHO)

  const current = (): Sandbox => {
    if (!ready) throw new Error(`${WHO}: call \`await listen()\` first (beforeAll(sandbox.listen))`)
    return ready
  }

  return {
    server,
    app,
    async listen() {
      ready = await app.ready()
      const unhandled = options.onUnhandledRequest ?? 'warn'
      // msw 3 calls it onUnhandledFrame; each msw ignores the other's name.
      const listenOptions = { onUnhandledRequest: unhandled, onUnhandledFrame: unhandled }
      server.listen(listenOptions)
    },
    close() {
      server.close()
      if (ready && pact) writePactParts(pact.dir, pact.all(ready))
    },
    async reset() {
      server.resetHandlers()
      const sandbox = current()
      // A reset clears the journals: what the test did is taken first.
      await pact?.keep(sandbox)
      const found = conduct === 'off' ? undefined : await worldsFindings(app, sandbox)
      await resetWorlds(app, sandbox, appOptions.seed, scenarios)
      // After the reset: the next test starts in a clean world whatever this one did.
      if (found && conduct === 'fail') throw new Error(`${WHO}: ${found}`)
      if (found) console.warn(`${WHO}: ${found}`)
    },
    use(...list) {
      useScenarios(app, current(), list)
    },
    sandbox: current,
    isolated: (id) => app.sandboxes.get(id),
    override: (override, sandboxId) => admin(sandboxId).override(override),
    admin,
    conduct: async (sandboxId) => reportOf(app, sandboxId ? await app.sandboxes.get(sandboxId) : current()),
  }
}
