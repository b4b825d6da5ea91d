import { type SetupWorker, setupWorker } from 'msw/browser'
import type { SandboxApp } from '../../core/app/app.js'
import type { AppOptions } from '../../sandbox-app.js'
import { servedRoutes } from '../../core/app/route.js'
import { routes as allRoutes } from '../../core/app/route-table.js'
import { RouteMatcher } from '../../core/app/matcher.js'
import type { Sandbox } from '../../core/sandbox/sandbox.js'
import type { ActiveScenario } from '../../core/scenarios/define.js'
import { parseFixtures } from '../../core/store/fixtures.js'
import { upstreamOption } from '../../core/bridge/upstream.js'
import { createHandlers, type HandlerApp } from '../msw/handlers.js'
import { type MswSandboxOptions, type ScenarioInput, scenarioList } from '../msw/options.js'
import { type RequestLog, requestLine, showNotice } from './notice.js'
import type { PersistedSandbox } from '../../core/persist/persisted.js'
import { mark, prepare } from './resume.js'
import { indexedDbAvailable, indexedDbBackend } from './store.js'
import { type InPagePanel, installPanel, panelBase, panelWanted } from './panel.js'

export type { ActiveScenario } from '../../core/scenarios/define.js'
export type { Sandbox } from '../../core/sandbox/sandbox.js'
export type { Size } from '../../core/seed/seed.js'
export type { FixtureRows } from '../../core/store/fixtures.js'
export { SandboxApp } from '../../core/app/app.js'

export type { ScenarioInput, ScenarioListText, ScenarioName, ScenarioOptions, ScenarioText, ScenarioWindow, ScenarioWindowBound } from '../msw/options.js'

export interface StartSandboxOptions extends MswSandboxOptions {
  /** Keep the state across reloads (default on); a string names the saved state, for several apps on one origin. */
  persist?: boolean | string
  /** Where `mockServiceWorker.js` is served (default `/mockServiceWorker.js`). */
  serviceWorkerUrl?: string
  /** No console messages (and no request log). */
  quiet?: boolean
  /**
   * The console line per answered request: `'line'` (default) is one readable line (method, path,
   * status, scenarios), `'msw'` MSW's own collapsed group, `false` none.
   */
  requestLog?: RequestLog
  /** A notice over the page when the start fails or `?sandbox-scenario=` is ignored (default true). */
  notice?: boolean
  /**
   * The inspector inside the page: a small button (and Alt+Shift+S) toggles it. The page URL's
   * `?sandbox-panel` installs it too, and opens it, for the rest of the tab's session (pages
   * without the parameter included); `?sandbox-panel=off` ends that.
   */
  panel?: boolean
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
  /** Saves the state now (every write is saved before its answer; what reads change, within a second and when the page is hidden). */
  save(): Promise<void>
  /** The in-page inspector, when `panel` or `?sandbox-panel` asked for it. */
  readonly panel: InPagePanel | undefined
}

const URL_PARAM = 'sandbox-scenario'
let current: SandboxHandle | undefined
let starting: Promise<unknown> = Promise.resolve()

/**
 * Starts the sandbox in this page: an MSW service worker answers the API with the same
 * handlers as the Node server. Resolves once the worker controls the page and the state is
 * ready (resumed or fresh), so the app can render and fetch right after it.
 */
export function startSandbox(options: StartSandboxOptions = {}): Promise<SandboxHandle> {
  if (typeof window === 'undefined' || typeof navigator === 'undefined') {
    return Promise.reject(new Error('startSandbox runs in a browser page; in Node tests use setupSandboxServer from fleet-sandbox/node'))
  }
  // One sandbox per page: a second start (React strict mode, hot reload) waits for the first, then replaces it.
  const run = starting.then(() => start(options))
  starting = run.catch(() => undefined)
  // The rejection is the caller's to handle (the README's recipe logs it and renders anyway);
  // the page says it too, so a recipe that forgets still shows why the API answers nothing.
  run.catch((error: Error) => options.notice !== false && showNotice(`fleet-sandbox did not start: ${error.message.replace(/^fleet-sandbox: /, '')}`))
  return run
}

async function start(options: StartSandboxOptions): Promise<SandboxHandle> {
  await current?.stop()
  const seed = options.seed ?? 1
  const startup = scenarioList(options.scenario, 'scenario')
  const fromUrl = urlScenarios(options)
  if (options.fixtures) parseFixtures(options.fixtures)
  const appOptions: AppOptions = { seed, now: options.now, size: options.size, notifications: options.notifications, scenarios: startup, strict: options.strict, control: {}, fixtures: options.fixtures, pageOrigin: location.origin, upstream: upstreamOption(options.upstream) }
  // Other fixtures are another world: a saved state made with different ones is not resumed.
  const fingerprint = JSON.stringify({ seed, now: options.now ?? null, size: options.size ?? null, notifications: options.notifications ?? null, scenarios: startup, ...(options.fixtures ? { fixtures: digest(JSON.stringify(options.fixtures)) } : {}) })
  const persist = options.persist !== false && indexedDbAvailable()
  const store = persist ? indexedDbBackend(typeof options.persist === 'string' ? options.persist : 'default') : undefined

  // Installing the worker happens on another thread: it starts before the state is built,
  // which keeps this one busy. Requests wait for the state.
  const ready = deferred<{ app: SandboxApp; persisted?: PersistedSandbox }>()
  const worker = setupWorker(...createHandlers(pendingApp(appOptions, ready.promise), { origins: options.origins, clientAddress: 'page' }))
  const requestLog = options.quiet ? false : (options.requestLog ?? 'line')
  if (requestLog === 'line') worker.events.on('response:mocked', ({ request, response }) => console.info(requestLine(request, response)))
  const workerUrl = options.serviceWorkerUrl ?? '/mockServiceWorker.js'
  const controlling = worker.start({ serviceWorker: { url: workerUrl }, onUnhandledRequest: options.onUnhandledRequest ?? 'bypass', quiet: requestLog !== 'msw' }).then(controlled, (error: Error) => {
    throw new Error(`fleet-sandbox: the service worker at ${workerUrl} did not start (${error.message}). Write it with \`npx fleet-sandbox init <publicDir>\` into the folder served at the app's root, or pass serviceWorkerUrl.`)
  })
  controlling.catch(() => undefined) // awaited below, after the state

  let app: SandboxApp
  let sandbox: Sandbox
  let resumed: boolean
  let persisted: PersistedSandbox | undefined
  try {
    await registering()
    ;({ app, sandbox, resumed, persisted } = await prepare(appOptions, store, fingerprint))
    if (fromUrl) sandbox.setScenarios(fromUrl)
    await save(persisted)
    ready.resolve({ app, persisted })
    await controlling
    mark('controlling')
  } catch (error) {
    ready.reject(error)
    void controlling.then(() => worker.stop(), () => undefined)
    store?.close()
    throw error
  }

  // What reads changed (journal, sliding sessions) waits for its batch: the page going stores it now.
  const onHide = () => void save(persisted)
  const onVisibility = () => document.visibilityState === 'hidden' && onHide()
  if (persisted) {
    addEventListener('pagehide', onHide)
    document.addEventListener('visibilitychange', onVisibility)
  }
  if (!options.quiet) {
    const active = sandbox.inForce().map((a) => a.name).join(', ') || 'none (healthy)'
    console.info(`fleet-sandbox: ${resumed ? 'resumed the saved state' : 'fresh state'}, seed ${sandbox.seed}, clock ${sandbox.iso()}, scenarios: ${active}${persist ? '' : ' (not persisted)'}`)
  }

  const asked = panelWanted(location.search)
  const panel = options.panel || asked.wanted ? installPanel({ base: panelBase(options.origins), open: asked.fromUrl }) : undefined

  let stopped = false
  const handle: SandboxHandle = {
    panel,
    app,
    worker,
    resumed,
    sandbox: () => (persisted?.later(), sandbox),
    async stop() {
      if (stopped) return
      stopped = true
      panel?.remove()
      removeEventListener('pagehide', onHide)
      document.removeEventListener('visibilitychange', onVisibility)
      worker.stop()
      await save(persisted)
      persisted?.close()
      store?.close()
      if (current === handle) current = undefined
    },
    async reset(nextSeed) {
      await sandbox.reset(nextSeed ?? sandbox.seed)
      for (const id of app.sandboxes.ids()) app.sandboxes.drop(id)
      await save(persisted)
    },
    async use(...scenarios) {
      sandbox.setScenarios(scenarioList(scenarios, 'use'), 'use')
      await save(persisted)
    },
    save: () => save(persisted),
  }
  current = handle
  return handle
}

/**
 * The app as the handlers see it while its state is prepared: the same routes; requests wait
 * for the state. A write's answer waits until IndexedDB has its changes, as a Durable Object's
 * output gate holds one, so a reload right after it loses nothing; a read's are stored in a batch.
 */
function pendingApp(options: AppOptions, ready: Promise<{ app: SandboxApp; persisted?: PersistedSandbox }>): HandlerApp {
  return {
    matcher: new RouteMatcher(servedRoutes(allRoutes, options)),
    async fetch(request, meta) {
      const { app, persisted } = await ready
      const response = await app.fetch(request, meta)
      if (request.method === 'GET' || request.method === 'HEAD') persisted?.later()
      else await save(persisted)
      return response
    },
  }
}

let warned = false
/** Stores what changed; a failed write (a full quota) is said once and does not fail the answer. */
function save(persisted: PersistedSandbox | undefined): Promise<void> {
  return (persisted?.flush() ?? Promise.resolve()).catch((error: unknown) => {
    if (!warned) console.warn('fleet-sandbox: could not save the sandbox state; it will not survive a reload.', error)
    warned = true
  })
}

/** Resolves once MSW has asked the browser for the worker (it does so first thing): the browser installs it on its own from there. */
async function registering(): Promise<void> {
  await navigator.serviceWorker?.getRegistrations().catch(() => undefined)
}

/** FNV-1a of a text: fixtures named in the fingerprint without storing them twice. */
function digest(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16)
}

function deferred<T>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)))
  promise.catch(() => undefined) // a failed start is reported by startSandbox; waiting requests fail with it
  return { promise, resolve, reject }
}

/**
 * The page URL's scenarios. A wrong one does not stop the app: it is ignored, and said in the
 * console and over the page, naming the parameter and the rule.
 */
function urlScenarios(options: StartSandboxOptions): ActiveScenario[] | undefined {
  try {
    return scenariosFromUrl(location.search)
  } catch (error) {
    const message = `fleet-sandbox: ${(error as Error).message}; the parameter is ignored, the active scenarios stay as they were`
    console.error(message)
    if (options.notice !== false) showNotice(message)
    return undefined
  }
}

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
