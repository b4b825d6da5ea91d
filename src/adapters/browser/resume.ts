import type { SandboxApp } from '../../core/app/app.js'
import { PersistedSandbox, type StoredMeta } from '../../core/persist/persisted.js'
import type { Sandbox } from '../../core/sandbox/sandbox.js'
import { type AppOptions, createSandboxApp } from '../../sandbox-app.js'
import type { PageBackend } from './store.js'

export interface Prepared {
  app: SandboxApp
  sandbox: Sandbox
  /** The default sandbox kept in IndexedDB; none with `persist: false` or without IndexedDB. */
  persisted?: PersistedSandbox
  /** Whether the saved state was resumed. */
  resumed: boolean
}

/**
 * The app with its default sandbox ready: the saved state when it was made from the same
 * options (`fingerprint`), else a fresh world, stored at once (a few kilobytes: the seed and
 * the instant it was seeded at). Seeded from the instant the saved world was first seeded at,
 * so its dates, resets and isolated sandboxes stay where they were.
 */
export async function prepare(options: AppOptions, backend: PageBackend | undefined, fingerprint: string): Promise<Prepared> {
  const saved = (await backend?.get('meta').catch((error: unknown) => void console.warn('fleet-sandbox: the saved state could not be read; starting fresh.', error))) as StoredMeta | undefined
  const usable = saved?.fingerprint === fingerprint && typeof saved.seededAt === 'number'
  const app = createSandboxApp(usable ? { ...options, seededAt: saved.seededAt as number } : options)
  const sandbox = await app.ready()
  mark('seeded')
  if (!backend) return { app, sandbox, resumed: false }
  const keep = (s: Sandbox, accepts: (m: StoredMeta) => boolean) => PersistedSandbox.open(s, backend, { meta: { fingerprint, seededAt: s.seededAt }, accepts })
  try {
    const persisted = await keep(sandbox, (m) => usable && m.fingerprint === fingerprint)
    mark(usable ? 'resumed' : 'fresh')
    return { app, sandbox, persisted, resumed: usable }
  } catch (error) {
    console.warn('fleet-sandbox: the saved state could not be restored; starting fresh.', error)
    const again = createSandboxApp(options)
    const fresh = await again.ready()
    mark('fresh')
    return { app: again, sandbox: fresh, persisted: await keep(fresh, () => false), resumed: false }
  }
}

/** Marks in the page's performance timeline (devtools, Performance panel): where start-up time goes. */
export const mark = (name: string) => performance.mark?.(`fleet-sandbox:${name}`)
