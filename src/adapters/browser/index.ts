import { type SetupWorker, setupWorker } from 'msw/browser'
import type { SandboxApp } from '../../core/app/app.js'
import { type AppOptions, bundledScenarios, createSandboxApp } from '../../apps/page-app.js'
import { routes } from '../../apps/route-table.js'
import type { ActiveScenario } from '../../core/scenarios/define.js'
import { entryAppOptions } from '../../core/options/entry.js'
import { type Resumed, durableApp, fingerprintOf, mark, resumeApp, save } from '../../core/persist/resume.js'
import { type MswSandboxOptions, createHandlers, journalOthers } from '../msw/handlers.js'
import { joinHandlers } from '../msw/join.js'
import { type KnownScenario, type NamedScenario, type ScenarioInput, scenarioList } from '../../own-scenarios/input.js'
import { ScenarioRegistry } from '../../core/scenarios/registry.js'
import { type RequestLog, requestLine, showNotice } from './notice.js'
import { indexedDbBackend } from './store.js'
import { type InPagePanel, panelWanted } from '../../panel/in-page.js'
import { type SavedWorld, savedWorld, stateLine } from '../../core/admin/life-cycle.js'

export * from '../public.js'

export interface StartSandboxOptions<S extends readonly NamedScenario[] = readonly []> extends MswSandboxOptions<S> {
  /** Keep the state across reloads (default on); a string names the saved state, for several apps on one origin. */
  persist?: boolean | string
  /** Where `mockServiceWorker.js` is served (default `/mockServiceWorker.js`). */
  serviceWorkerUrl?: string
  /**
   * Your app's own `setupWorker(...)`, not started yet: the sandbox joins it (its handlers go
   * first, kept by your `resetHandlers()`) and starts it, so your handlers and the sandbox
   * answer from one service worker. msw 2 or 3, whichever your app has (docs/browser.md).
   */
  worker?: SetupWorker
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

/** The page's world (`SavedWorld`: `sandbox()`, `reset`, `use`, `save`, `override`, `admin`, `replaceFixtures`), and the page's own. */
export interface SandboxHandle<S extends readonly NamedScenario[] = readonly []> extends SavedWorld<
  ScenarioInput<KnownScenario<S>>
> {
  readonly app: SandboxApp
  readonly worker: SetupWorker
  /** Whether this start resumed a state saved by an earlier page. */
  readonly resumed: boolean
  /** Stops answering requests (the state is saved first). */
  stop(): Promise<void>
  /** The in-page inspector, when `panel` or `?sandbox-panel` asked for it. */
  readonly panel: InPagePanel | undefined
}

let current: SandboxHandle<readonly NamedScenario[]> | undefined
let starting: Promise<unknown> = Promise.resolve()

/**
 * Starts the sandbox in this page: an MSW service worker answers the API with the same
 * handlers as the Node server. Resolves once the worker controls the page and the state is
 * ready (resumed or fresh), so the app can render and fetch right after it.
 */
export function startSandbox<const S extends readonly NamedScenario[] = readonly []>(
  options: StartSandboxOptions<S> = {},
): Promise<SandboxHandle<S>> {
  if (typeof window === 'undefined' || typeof navigator === 'undefined') {
    return Promise.reject(
      new Error('startSandbox runs in a browser page; in Node tests use setupSandboxServer from fleet-sandbox/node'),
    )
  }
  // One sandbox per page: a second start (React strict mode, hot reload) waits for the first, then replaces it.
  const run = starting.then(() => start(options as StartSandboxOptions<readonly NamedScenario[]>)) as Promise<
    SandboxHandle<S>
  >
  starting = run.catch(() => undefined)
  // The rejection is the caller's to handle (the README's recipe logs it and renders anyway);
  // the page says it too, so a recipe that forgets still shows why the API answers nothing.
  run.catch(
    (error: Error) =>
      options.notice !== false &&
      showNotice(`fleet-sandbox did not start: ${error.message.replace(/^fleet-sandbox: /, '')}`),
  )
  return run
}

type AnyOptions = StartSandboxOptions<readonly NamedScenario[]>

async function start(options: AnyOptions): Promise<SandboxHandle<readonly NamedScenario[]>> {
  await current?.stop()
  const asked = await askedOf(options)
  // Installing the worker happens on another thread: it starts before the state is built,
  // which keeps this one busy. Requests wait for the state.
  let ready!: (state: Resumed) => void, failed!: (error: unknown) => void
  const state = new Promise<Resumed>((resolve, reject) => ((ready = resolve), (failed = reject)))
  state.catch(() => undefined) // a failed start is reported by startSandbox; waiting requests fail with it
  const front = durableApp(asked.appOptions, state)
  const installed = await installWorker(options, front)
  let resumed: Resumed
  try {
    resumed = await resumedState(options, asked, installed.store)
    ready(resumed)
    await installed.controlling
    mark('controlling')
    await installed.checks.checkAnswering(options.origins)
  } catch (error) {
    failed(error)
    void installed.controlling.then(
      () => installed.worker.stop(),
      () => undefined,
    )
    installed.store?.close()
    throw error
  }
  if (!options.quiet) console.info(`fleet-sandbox: ${stateLine(resumed, installed.store !== undefined)}`)
  const wanted = panelWanted(location.search)
  const panel =
    options.panel || wanted.wanted
      ? await import('../../panel/install.js')
          .then((m) => m.installPanel({ origins: options.origins, open: wanted.fromUrl }))
          .catch(say(options))
      : undefined
  return (current = handleOf(resumed, installed, front, panel))
}

/** What the options ask of the app: its options, the scenarios, and those of the page's URL. */
async function askedOf(options: AnyOptions) {
  // Your own scenarios: their checks load only when there are some (the entry's gzip budget),
  // and from a module that imports nothing else, so the entry splits into no more chunks.
  const definitions =
    options.scenarios === undefined
      ? undefined
      : (await import('../../own-scenarios/check.js')).withOwnScenarios(bundledScenarios.list(), options.scenarios)
  const known = definitions && new ScenarioRegistry(definitions)
  const scenarios = scenarioList(options.scenario, 'scenario', known)
  const fromUrl = urlScenarios(options, known)
  const appOptions = {
    routes,
    ...entryAppOptions(options, scenarios),
    pageOrigin: location.origin,
    ...(definitions && { scenarioDefinitions: definitions }),
  } satisfies AppOptions
  return { scenarios, fromUrl, appOptions }
}

type Asked = Awaited<ReturnType<typeof askedOf>>

/** The service worker checked, given the handlers and started; the state's store; `controlling` once the worker controls the page. */
async function installWorker(options: AnyOptions, front: ReturnType<typeof durableApp>) {
  const workerUrl = options.serviceWorkerUrl ?? '/mockServiceWorker.js'
  const worker = options.worker ?? setupWorker()
  // Loaded apart: the entry's gzip budget (test/browser/sandbox.test.ts).
  const checks = await import('./worker-script.js')
  await checks.checkWorkerScript(workerUrl, worker)
  joinHandlers(worker, createHandlers(front, { origins: options.origins, clientAddress: 'page' }))
  // Answers of the app's own worker.use() handlers are journaled like the sandbox's.
  journalOthers(worker.events, front, { origins: options.origins })
  const requestLog = options.quiet ? false : (options.requestLog ?? 'line')
  if (requestLog === 'line')
    worker.events.on('response:mocked', ({ request, response }) => console.info(requestLine(request, response)))
  const persist = options.persist !== false && typeof indexedDB !== 'undefined'
  const store = persist
    ? indexedDbBackend(typeof options.persist === 'string' ? options.persist : 'default')
    : undefined
  const unhandled = options.onUnhandledRequest ?? 'bypass'
  // msw 3 calls it onUnhandledFrame; each msw ignores the other's name.
  const startOptions = {
    serviceWorker: { url: workerUrl },
    onUnhandledRequest: unhandled,
    onUnhandledFrame: unhandled,
    quiet: requestLog !== 'msw',
  }
  const controlling = checks.startWithin(worker.start(startOptions), workerUrl).then(checks.controlled)
  controlling.catch(() => undefined) // awaited after the state
  return { worker, checks, store, controlling }
}

type Installed = Awaited<ReturnType<typeof installWorker>>

/** The state resumed from the store (or fresh), the page URL's scenarios set, saved. */
async function resumedState(options: AnyOptions, asked: Asked, store: Installed['store']): Promise<Resumed> {
  // MSW asks the browser for the worker first thing: the browser installs it on its own from there.
  await navigator.serviceWorker?.getRegistrations().catch(() => undefined)
  const resumed = await resumeApp(
    (seededAt) => createSandboxApp({ ...asked.appOptions, seededAt }),
    store,
    fingerprintOf({ ...options, seed: asked.appOptions.seed, scenarios: asked.scenarios }),
    options.fixtures,
  )
  if (asked.fromUrl) resumed.sandbox.setScenarios(asked.fromUrl)
  await save(resumed.persisted)
  return resumed
}

/** What the page's code holds: the world, its admin, and a stop that saves it first. */
function handleOf(
  resumed: Resumed,
  { worker, store }: Installed,
  front: ReturnType<typeof durableApp>,
  panel: InPagePanel | undefined,
): SandboxHandle<readonly NamedScenario[]> {
  const { app, persisted } = resumed
  // What reads changed (journal, sliding sessions) waits for its batch: the page going stores it now.
  const onHide = () => void save(persisted)
  const onVisibility = () => document.visibilityState === 'hidden' && onHide()
  if (persisted) {
    addEventListener('pagehide', onHide)
    document.addEventListener('visibilitychange', onVisibility)
  }
  let stopped = false
  const handle: SandboxHandle<readonly NamedScenario[]> = {
    ...savedWorld(resumed, front, 'fleet-sandbox/browser'),
    panel,
    app,
    worker,
    resumed: resumed.resumed,
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
  }
  return handle
}

/** Says what went wrong in the console and, unless `notice: false`, over the page; the app goes on without it. */
const say =
  (options: AnyOptions, after = '') =>
  (error: unknown): undefined => {
    const message = `${String((error as Error)?.message ?? error)}${after}`
    console.error(message)
    if (options.notice !== false) showNotice(message)
  }

/**
 * `?sandbox-scenario=a,b` sets the active scenarios, like `PUT /__sandbox/scenarios`; an empty
 * value is healthy. A wrong one does not stop the app: it is ignored, and said, naming the parameter and the rule.
 */
function urlScenarios(options: AnyOptions, known: ScenarioRegistry | undefined): ActiveScenario[] | undefined {
  const value = new URLSearchParams(location.search).get('sandbox-scenario')
  try {
    return value === null ? undefined : scenarioList(value, '?sandbox-scenario', known)
  } catch (error) {
    return say(
      options,
      '; the parameter is ignored, the active scenarios stay as they were',
    )(new Error(`fleet-sandbox: ${(error as Error).message}`))
  }
}
