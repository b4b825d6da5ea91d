import type { SandboxApp } from '../app/app.js'
import type { ConductReport } from '../conduct/report.js'
import type { Pact } from '../contracts/pact.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { ActiveScenario } from '../scenarios/define.js'
import type { Admin, OverrideInfo, OverrideInput } from './admin.js'
import { AdminClient, appSend } from './client.js'
import { type ConductOption, conductOption, reportOf, worldsFindings } from './conduct.js'
import { resetWorlds, useScenarios } from './life-cycle.js'
import { type PactOption, pactRecorder } from './pact.js'

/** What a test suite's worlds are given besides the app's options (`fleet-sandbox/node`'s). */
export interface SuiteOptions {
  /** Writes the Pact file of the suite's worlds into `dir` on `close()` (every worker's merged; docs/contracts.md). */
  pact?: PactOption
  /**
   * The app's conduct (docs/conduct.md), checked at each `reset()`: `fail` throws with the
   * findings of the worlds the test used (the test fails in its `afterEach`), `warn` prints them,
   * `off` (the default) does not look.
   */
  conduct?: ConductOption
}

/** The worlds of a test suite, in process: what `setupSandboxServer` hands out besides msw's server. */
export interface SuiteWorld<Scenario> {
  /** Back to the configured world (seed and scenarios), every `x-sandbox-id` world dropped. */
  reset(): Promise<void>
  /** Exactly these scenarios are active until the next `reset()`; none is healthy. */
  use(...scenarios: Scenario[]): void
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
  admin(sandboxId?: string): Admin<Scenario>
  /** The app's conduct in the default world, or the one `sandboxId` names (docs/conduct.md). */
  conduct(sandboxId?: string): Promise<ConductReport>
}

/**
 * A suite's worlds over `app`: reset to `seed` and `scenarios` (the entry's configured ones), the
 * pacts taken and the conduct judged before each reset clears the journals. `who` names the entry.
 */
export function suiteWorld<Scenario>(
  app: SandboxApp,
  options: SuiteOptions & { seed: number; scenarios: ActiveScenario[] },
  who: string,
) {
  let ready: Sandbox | undefined
  const pact = options.pact && pactRecorder(app, options.pact)
  const conduct = conductOption(options.conduct, who)
  const admin = (sandboxId?: string) => new AdminClient<Scenario>(appSend(app, sandboxId), who)
  const current = (): Sandbox => {
    if (!ready) throw new Error(`${who}: call \`await listen()\` first (beforeAll(sandbox.listen))`)
    return ready
  }
  const world: SuiteWorld<Scenario> = {
    async reset() {
      const sandbox = current()
      // A reset clears the journals: what the test did is taken first.
      await pact?.keep(sandbox)
      const found = conduct === 'off' ? undefined : await worldsFindings(app, sandbox)
      await resetWorlds(app, sandbox, options.seed, options.scenarios)
      // After the reset: the next test starts in a clean world whatever this one did.
      if (found && conduct === 'fail') throw new Error(`${who}: ${found}`)
      if (found) console.warn(`${who}: ${found}`)
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
  return {
    world,
    /** Seeds the default world: before the first request. */
    async start() {
      ready = await app.ready()
    },
    /** Every pact kept, the default world's since the last reset taken now (a suite's `close()` is synchronous). */
    pacts: (): readonly Pact[] => (ready && pact ? pact.all(ready) : []),
  }
}
