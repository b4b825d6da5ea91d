import type { SandboxApp } from '../app/app.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { ActiveScenario } from '../scenarios/define.js'
import { type Resumed, fixtureDigests, save } from '../persist/resume.js'
import { type FixtureRows, parseFixtures } from '../store/fixtures.js'
import { type Admin, type OverrideInfo, type OverrideInput, lazyAdmin } from './admin.js'
import type { appSend } from './client.js'

// What the entries' own `reset()` and `use()` do in process (`fleet-sandbox/node`,
// `fleet-sandbox/browser`, saved there), written once beside the control API they mirror. Not control calls:
// node's `use` is synchronous, so the request right after it already sees the scenarios.

/**
 * Fresh data for `seed` in the default world, every isolated world dropped; `scenarios` (an
 * entry's configured ones) put back in force when given.
 */
export async function resetWorlds(
  app: Pick<SandboxApp, 'sandboxes'>,
  sandbox: Sandbox,
  seed: number,
  scenarios?: ActiveScenario[],
): Promise<void> {
  await sandbox.reset(seed)
  if (scenarios) sandbox.setScenarios(scenarios, 'scenario')
  for (const id of app.sandboxes.ids()) app.sandboxes.drop(id)
}

/** Exactly these scenarios in the default world, each checked against the app's (`use.<i>` names a wrong one). */
export function useScenarios(app: Pick<SandboxApp, 'scenarios'>, sandbox: Sandbox, list: readonly unknown[]): void {
  sandbox.setScenarios(
    list.map((s, i) => app.scenarios.parse(s, `use.${i}`)),
    'use',
  )
}

/**
 * A world kept in a runtime's storage, as an in-process entry hands it out (the browser's
 * handle, Storybook's through it): its life cycle and its admin, each write saved before it resolves.
 */
export interface SavedWorld<Scenario> {
  /** The default sandbox: records, clock, sessions, journal, outbox. */
  sandbox(): Sandbox
  /** Like `POST /__sandbox/reset`: fresh data for `seed` (default: the current one); scenarios, clock, journal and outbox cleared. */
  reset(seed?: number): Promise<void>
  /** Like `PUT /__sandbox/scenarios`: exactly these scenarios are active; none is healthy. */
  use(...scenarios: Scenario[]): Promise<void>
  /** Saves the state now (every write is saved before its answer; what reads change, within a second and when the page is hidden). */
  save(): Promise<void>
  /** One answer of your own, like `POST /__sandbox/overrides`; `reset()` clears it. */
  override(override: OverrideInput): Promise<OverrideInfo>
  /**
   * The admin interface every entry hands out (docs/control-api.md, "From code"): the control API
   * of this world, in process; every write saved as the app's are.
   */
  readonly admin: Admin<Scenario>
  /**
   * Replaces these collections in every world, the rest of the state kept (as `--watch` does):
   * for a fixture module under Vite's hot update (docs/your-own-answers.md). Saved, so a reload
   * keeps it; a wrong row throws naming the collection, the row and the field, and changes nothing.
   */
  replaceFixtures(rows: FixtureRows): Promise<void>
}

/** The world `resumed` holds, its admin through `front` (the durable front door), `who` naming the entry in errors. */
export function savedWorld<Scenario>(
  { app, sandbox, persisted }: Resumed,
  front: Parameters<typeof appSend>[0],
  who: string,
): SavedWorld<Scenario> {
  // The client is loaded on first use (the browser entry's gzip budget, test/browser/sandbox.test.ts).
  const admin = lazyAdmin(async () => {
    const { AdminClient, appSend } = await import('./client.js')
    return new AdminClient<Scenario>(appSend(front), who)
  })
  return {
    // What the caller changes through it is saved with the next batch.
    sandbox: () => (persisted?.later(), sandbox),
    save: () => save(persisted),
    async reset(seed) {
      await resetWorlds(app, sandbox, seed ?? sandbox.seed)
      await save(persisted)
    },
    async use(...scenarios) {
      useScenarios(app, sandbox, scenarios)
      await save(persisted)
    },
    override: (override) => admin.override(override),
    admin,
    async replaceFixtures(rows) {
      parseFixtures(rows)
      if (persisted)
        persisted.meta.fixtures = { ...(persisted.meta.fixtures as Record<string, string>), ...fixtureDigests(rows) }
      await app.sandboxes.replaceFixtures(rows)
      await save(persisted)
    },
  }
}

/** What a start says of its world: fresh or resumed, the seed, the clock, the scenarios in force. */
export function stateLine({ sandbox, resumed }: Resumed, persisted: boolean): string {
  const active =
    sandbox
      .inForce()
      .map((a) => a.name)
      .join(', ') || 'none (healthy)'
  return `${resumed ? 'resumed the saved state' : 'fresh state'}, seed ${sandbox.seed}, clock ${sandbox.iso()}, scenarios: ${active}${persisted ? '' : ' (not persisted)'}`
}
