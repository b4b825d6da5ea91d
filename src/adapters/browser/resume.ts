import type { SandboxApp } from '../../core/app/app.js'
import { type AppOptions, createSandboxApp } from '../../sandbox-app.js'
import type { Sandbox } from '../../core/sandbox/sandbox.js'
import { applyLight } from './light.js'
import type { Saved } from './store.js'

export interface Prepared {
  app: SandboxApp
  sandbox: Sandbox
  /** Whether the saved state was resumed; then `base` is the `savedAt` of its records. */
  resumed: boolean
  base?: number
}

/**
 * The app with its default sandbox ready: the saved state when it was made from the same
 * options, else a fresh world. Seeded from the instant the saved world was first seeded at, so
 * resets and isolated sandboxes keep its dates; a world no write had changed is only seeded
 * again, which is quicker than restoring a snapshot and gives the same records.
 */
export async function prepare(options: AppOptions, saved: Saved | undefined, fingerprint: string): Promise<Prepared> {
  const state = saved?.state?.fingerprint === fingerprint ? saved.state : undefined
  const light = state && saved?.light?.fingerprint === fingerprint && saved.light.base === state.savedAt ? saved.light : undefined
  const app = createSandboxApp(typeof state?.seededAt === 'number' ? { ...options, seededAt: state.seededAt } : options)
  const sandbox = await app.ready()
  mark('seeded')
  if (!state) return fresh(app, sandbox)
  try {
    if (state.snapshot === undefined) {
      if (light) applyLight(sandbox, light.state)
    } else {
      await sandbox.restore({ ...JSON.parse(state.snapshot), ...light?.state })
    }
    if (!sandbox.clock.frozen) sandbox.clock.advance(Math.max(0, Date.now() - (light ?? state).savedAt))
  } catch (error) {
    console.warn('fleet-sandbox: the saved state could not be restored; starting fresh.', error)
    const again = createSandboxApp(options)
    return fresh(again, await again.ready())
  }
  mark('resumed')
  return { app, sandbox, resumed: true, base: state.savedAt }
}

function fresh(app: SandboxApp, sandbox: Sandbox): Prepared {
  mark('fresh')
  return { app, sandbox, resumed: false }
}

/** Marks in the page's performance timeline (devtools, Performance panel): where start-up time goes. */
export const mark = (name: string) => performance.mark?.(`fleet-sandbox:${name}`)
