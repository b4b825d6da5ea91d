import type { SandboxApp } from '../app/app.js'
import { RouteMatcher } from '../route/matcher.js'
import { type RouteDef, servedRoutes } from '../route/route.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { FixtureRows } from '../store/fixtures.js'
import type { StateBackend } from './backend.js'
import { PersistedSandbox, type StoredMeta } from './persisted.js'

export interface Resumed {
  app: SandboxApp
  sandbox: Sandbox
  /** The default sandbox kept in the backend; none without a backend. */
  persisted?: PersistedSandbox
  /** Whether the saved state was resumed. */
  resumed: boolean
}

/**
 * An app whose default sandbox resumes what `backend` holds when it was made from the same
 * options (`fingerprint`), else starts fresh and is stored at once (a few kilobytes: the seed
 * and the instant it was seeded at). `create` makes the app, seeded from the instant the saved
 * world was first seeded at, so its dates, resets and isolated sandboxes stay where they were.
 * A state that cannot be read or put back is said in the console and replaced by a fresh one.
 */
export async function resumeApp(
  create: (seededAt?: number) => SandboxApp,
  backend: StateBackend | undefined,
  fingerprint: string,
  fixtures?: FixtureRows,
): Promise<Resumed> {
  const saved = (await backend
    ?.get('meta')
    .catch(
      (error: unknown) => void console.warn('fleet-sandbox: the saved state could not be read; starting fresh.', error),
    )) as StoredMeta | undefined
  const usable = saved?.fingerprint === fingerprint && typeof saved.seededAt === 'number'
  const app = create(usable ? (saved.seededAt as number) : undefined)
  const sandbox = await app.ready()
  mark('seeded')
  if (!backend) return { app, sandbox, resumed: false }
  const digests = fixtures && fixtureDigests(fixtures)
  const keep = (s: Sandbox, accepts: (m: StoredMeta) => boolean) =>
    PersistedSandbox.open(s, backend, {
      meta: { fingerprint, seededAt: s.seededAt, ...(digests && { fixtures: digests }) },
      accepts,
    })
  try {
    const persisted = await keep(sandbox, (m) => usable && m.fingerprint === fingerprint)
    // A fixture that changed since the state was saved replaces its collection; the rest of the world stays.
    if (usable && fixtures) {
      const before = (saved.fixtures ?? {}) as Record<string, string>
      const changed = Object.fromEntries(Object.entries(fixtures).filter(([name]) => before[name] !== digests![name]))
      if (Object.keys(changed).length > 0) await app.sandboxes.replaceFixtures(changed)
    }
    mark(usable ? 'resumed' : 'fresh')
    return { app, sandbox, persisted, resumed: usable }
  } catch (error) {
    console.warn('fleet-sandbox: the saved state could not be restored; starting fresh.', error)
    const again = create()
    const fresh = await again.ready()
    mark('fresh')
    return { app: again, sandbox: fresh, persisted: await keep(fresh, () => false), resumed: false }
  }
}

/**
 * What a saved state was made from: other options (or fixtures for other collections) are
 * another world, not resumed. Changed rows of the same collections are not: resumeApp replaces
 * those collections in the resumed world (a fixture edited under Vite's hot update, then a reload).
 */
export function fingerprintOf(options: {
  seed: number
  now?: string
  size?: string
  notifications?: number
  scenarios: unknown
  fixtures?: FixtureRows
}): string {
  const { seed, now = null, size = null, notifications = null, scenarios, fixtures } = options
  return JSON.stringify({
    seed,
    now,
    size,
    notifications,
    scenarios,
    ...(fixtures ? { fixtures: Object.keys(fixtures).sort().join(',') } : {}),
  })
}

/** Each collection's rows, named by a digest: kept in the saved state's meta. */
export function fixtureDigests(fixtures: FixtureRows): Record<string, string> {
  return Object.fromEntries(Object.entries(fixtures).map(([name, rows]) => [name, digest(JSON.stringify(rows))]))
}

/** FNV-1a of a text: fixtures named in the fingerprint without storing them twice. */
function digest(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16)
}

/** Marks in the runtime's performance timeline (a page's devtools, Performance panel): where start-up time goes. */
export const mark = (name: string) => globalThis.performance?.mark?.(`fleet-sandbox:${name}`)

/**
 * The front door of an app whose state is still being prepared: the routes `options` serve
 * match at once, requests wait for the state. A write's
 * answer (any method but GET and HEAD) waits until the backend has its changes, as a Durable
 * Object's output gate holds one, so a reload right after it loses nothing; what a read changed
 * (journal, sliding sessions) is stored in a batch.
 */
export function durableApp(
  options: { routes: readonly RouteDef[]; strict?: boolean; control?: unknown },
  state: Promise<Resumed>,
): Pick<SandboxApp, 'matcher' | 'fetch' | 'journalAnswer'> {
  return {
    async journalAnswer(request, response, target) {
      const { app, persisted } = await state
      await app.journalAnswer(request, response, target)
      await quietly(persisted?.answered('GET'))
    },
    matcher: new RouteMatcher(servedRoutes(options.routes, options)),
    async fetch(request, meta) {
      const { app, persisted } = await state
      const response = await app.fetch(request, meta)
      await quietly(persisted?.answered(request.method))
      return response
    },
  }
}

let warned = false
/** Stores what changed, now. */
export function save(persisted: PersistedSandbox | undefined): Promise<void> {
  return quietly(persisted?.flush())
}

/** A failed write (a full quota) is said once and does not fail the answer. */
function quietly(storing: Promise<void> | undefined): Promise<void> {
  return (storing ?? Promise.resolve()).catch((error: unknown) => {
    if (!warned) console.warn('fleet-sandbox: could not save the sandbox state; it will not survive a reload.', error)
    warned = true
  })
}
