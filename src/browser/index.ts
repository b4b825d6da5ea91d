import { type SetupWorker, setupWorker } from 'msw/browser'
import { SandboxApp } from '../core/app.js'
import type { Sandbox } from '../core/sandbox.js'
import type { ActiveScenario } from '../core/scenarios/define.js'
import { createHandlers } from '../msw/handlers.js'
import { type MswSandboxOptions, type ScenarioInput, scenarioList } from '../msw/options.js'
import { Saver } from './saver.js'
import { StateStore } from './store.js'

export type { ActiveScenario } from '../core/scenarios/define.js'
export type { Sandbox } from '../core/sandbox.js'
export type { Size } from '../core/seed/index.js'
export { SandboxApp } from '../core/app.js'

export type { ScenarioInput } from '../msw/options.js'

export interface StartSandboxOptions extends MswSandboxOptions {
  /** Keep the state across reloads (default on); a string names the saved state, for several apps on one origin. */
  persist?: boolean | string
  /** Where `mockServiceWorker.js` is served (default `/mockServiceWorker.js`). */
  serviceWorkerUrl?: string
  /** No console messages. */
  quiet?: boolean
}

export interface SandboxHandle {
  readonly app: SandboxApp
  readonly worker: SetupWorker
  /** Whether this start resumed a state saved by an earlier page. */
  readonly resumed: boolean
  /** The default sandbox: records, clock, sessions, journal, outbox. */
  sandbox(): Sandbox
  /** Stops answering requests (the state is saved first). */
  stop(): Promise<void>
  /** Like `POST /__sandbox/reset`: fresh data for `seed` (default: the current one); scenarios, clock, journal and outbox cleared. */
  reset(seed?: number): Promise<void>
  /** Like `PUT /__sandbox/scenarios`: exactly these scenarios are active; none is healthy. */
  use(...scenarios: ScenarioInput[]): Promise<void>
  /** Saves the state now (it is also saved after every write and when the page is hidden). */
  save(): Promise<void>
}

const URL_PARAM = 'sandbox-scenario'
let current: SandboxHandle | undefined
let starting: Promise<unknown> = Promise.resolve()

/**
 * Starts the sandbox in this page: an MSW service worker answers the API with the same
 * handlers as the Node server. Resolves once the worker controls the page, so the app can
 * render and fetch right after it.
 */
export function startSandbox(options: StartSandboxOptions = {}): Promise<SandboxHandle> {
  if (typeof window === 'undefined' || typeof navigator === 'undefined') {
    return Promise.reject(new Error('startSandbox runs in a browser page; in Node tests use setupSandboxServer from fleet-sandbox/node'))
  }
  // One sandbox per page: a second start (React strict mode, hot reload) waits for the first, then replaces it.
  const run = starting.then(() => start(options))
  starting = run.catch(() => undefined)
  return run
}

async function start(options: StartSandboxOptions): Promise<SandboxHandle> {
  await current?.stop()
  const seed = options.seed ?? 1
  const startup = scenarioList(options.scenario, 'scenario')
  const fromUrl = scenariosFromUrl(location.search)
  const app = new SandboxApp({ seed, now: options.now, size: options.size, notifications: options.notifications, scenarios: startup, strict: options.strict, control: {} })
  const sandbox = await app.ready()
  mark('seeded')

  const fingerprint = JSON.stringify({ seed, now: options.now ?? null, size: options.size ?? null, notifications: options.notifications ?? null, scenarios: startup })
  const persist = options.persist !== false && StateStore.available()
  const store = persist ? new StateStore(typeof options.persist === 'string' ? options.persist : 'default') : undefined
  const resumed = store ? await resume(store, sandbox, fingerprint) : false
  mark(resumed ? 'resumed' : 'fresh')
  if (fromUrl) sandbox.setScenarios(fromUrl)
  const saver = store && new Saver(store, () => sandbox, fingerprint)

  const worker = setupWorker(...createHandlers(app, { origins: options.origins, clientAddress: 'page' }))
  worker.events.on('response:mocked', ({ request }) => saver?.schedule(request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write'))
  const workerUrl = options.serviceWorkerUrl ?? '/mockServiceWorker.js'
  const registration = await worker.start({ serviceWorker: { url: workerUrl }, onUnhandledRequest: options.onUnhandledRequest ?? 'bypass', quiet: options.quiet }).catch((error: Error) => {
    store?.close()
    throw new Error(`fleet-sandbox: the service worker at ${workerUrl} did not start (${error.message}). Write it with \`npx fleet-sandbox init <publicDir>\` into the folder served at the app's root, or pass serviceWorkerUrl.`)
  })
  await controlled(registration)
  mark('controlling')

  // A fresh world is saved at once: without `now` its dates follow the real time, so a reload must not re-seed it.
  if (saver && (!resumed || fromUrl)) void saver.save()
  const onHide = () => void saver?.save()
  const onVisibility = () => document.visibilityState === 'hidden' && onHide()
  if (saver) {
    addEventListener('pagehide', onHide)
    document.addEventListener('visibilitychange', onVisibility)
  }
  if (!options.quiet) {
    const active = sandbox.active.map((a) => a.name).join(', ') || 'none (healthy)'
    console.info(`fleet-sandbox: ${resumed ? 'resumed the saved state' : 'fresh state'}, seed ${sandbox.seed}, clock ${sandbox.iso()}, scenarios: ${active}${persist ? '' : ' (not persisted)'}`)
  }

  let stopped = false
  const handle: SandboxHandle = {
    app,
    worker,
    resumed,
    sandbox: () => sandbox,
    async stop() {
      if (stopped) return
      stopped = true
      removeEventListener('pagehide', onHide)
      document.removeEventListener('visibilitychange', onVisibility)
      worker.stop()
      await saver?.save()
      store?.close()
      if (current === handle) current = undefined
    },
    async reset(nextSeed) {
      await sandbox.reset(nextSeed ?? sandbox.seed)
      for (const id of app.sandboxes.ids()) app.sandboxes.drop(id)
      await saver?.save()
    },
    async use(...scenarios) {
      sandbox.setScenarios(scenarioList(scenarios, 'use'))
      await saver?.save()
    },
    save: async () => saver?.save(),
  }
  current = handle
  return handle
}

/** Restores the saved state if it was made from the same options; anything else starts fresh. */
async function resume(store: StateStore, sandbox: Sandbox, fingerprint: string): Promise<boolean> {
  try {
    const saved = await store.load()
    if (!saved || saved.fingerprint !== fingerprint) return false
    await sandbox.restore(JSON.parse(saved.snapshot))
    if (!sandbox.clock.frozen) sandbox.clock.advance(Math.max(0, Date.now() - saved.savedAt))
    return true
  } catch (error) {
    console.warn('fleet-sandbox: the saved state could not be restored; starting fresh.', error)
    return false
  }
}

/** Marks in the page's performance timeline (devtools, Performance panel): where start-up time goes. */
const mark = (name: string) => performance.mark?.(`fleet-sandbox:${name}`)

/** `?sandbox-scenario=a,b` sets the active scenarios, like `PUT /__sandbox/scenarios`; an empty value is healthy. */
export function scenariosFromUrl(search: string): ActiveScenario[] | undefined {
  const value = new URLSearchParams(search).get(URL_PARAM)
  return value === null ? undefined : scenarioList(value, `?${URL_PARAM}`)
}

async function controlled(registration: ServiceWorkerRegistration | undefined): Promise<void> {
  const sw = navigator.serviceWorker
  // Without service workers (an insecure origin) MSW patches fetch in the page instead.
  if (!sw || !registration || sw.controller) return
  if (!location.href.startsWith(registration.scope)) {
    throw new Error(`fleet-sandbox: the worker's scope ${registration.scope} does not cover this page (${location.href}); serve mockServiceWorker.js from the app's root or a folder above the page`)
  }
  await new Promise<void>((resolve) => {
    sw.addEventListener('controllerchange', () => resolve(), { once: true })
    if (sw.controller) resolve()
  })
}
