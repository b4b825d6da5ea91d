import type { SandboxApp } from '../app/app.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { ActiveScenario } from '../scenarios/define.js'

// What the entries' own `reset()` and `use()` do in process (`fleet-sandbox/node`,
// `fleet-sandbox/browser`), written once beside the control API they mirror. Not control calls:
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
