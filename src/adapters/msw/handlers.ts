import { HttpHandler, HttpResponse, type UnhandledRequestStrategy } from 'msw'
import type { EntryOptions } from '../../core/options/entry.js'
import type { NamedScenario, ScenarioEntryOptions } from '../../own-scenarios/input.js'
import type { SandboxApp } from '../../core/app/app.js'
import { Places } from '../../core/route/places.js'
import type { Matcher } from '../../core/route/matcher.js'
import { type Target, targetOf } from '../../core/http/url.js'
import { BoundedSet } from '../../core/http/bounded-set.js'

export interface HandlerOptions {
  /** Origins to answer (`https://api.example.com`, `/backend`); default: `/api/...` and `/__sandbox/...` on any origin. */
  origins?: string[]
  /** Who the caller is when there is no token (the rate-limited key); default `page`. */
  clientAddress?: string
}

/** What every MSW-based entry (browser worker, msw/node, Storybook) is started with. */
export interface MswSandboxOptions<S extends readonly NamedScenario[] = readonly []>
  extends EntryOptions, ScenarioEntryOptions<S>, Pick<HandlerOptions, 'origins'> {
  /** What MSW does with requests no route matches. */
  onUnhandledRequest?: UnhandledRequestStrategy
}

/** What the handlers use of the app: the browser entry passes one whose state is still being prepared. */
export type HandlerApp = Pick<SandboxApp, 'fetch'> & { matcher: Pick<Matcher, 'serves'> } & Partial<
    Pick<SandboxApp, 'journalAnswer'>
  >

/** What `setupServer()` and `setupWorker()` both have: their life-cycle events. */
interface Events {
  on(event: 'request:start', listener: (args: { request: Request; requestId: string }) => void): void
  on(
    event: 'response:mocked',
    listener: (args: { request: Request; requestId: string; response: Response }) => void,
  ): void
}

/**
 * Journals the answers an app's own handlers (`server.use()`, `worker.use()`) give in the
 * sandbox's places, like the sandbox's own: the same `Places.claim`, marked `faults: ["use"]`.
 * What the sandbox answered itself is journaled by its pipeline.
 */
export function journalOthers(events: Events, app: HandlerApp, options: HandlerOptions = {}): void {
  const places = new Places(options.origins ?? [])
  events.on('response:mocked', ({ request, requestId, response }) => {
    if (answeredHere.delete(requestId) || !app.journalAnswer) return
    const target = places.claim(targetOf(request), request.method, app.matcher)
    if (target !== undefined) void app.journalAnswer(request, response, target).catch(() => undefined)
  })
}

/**
 * The ids of requests the sandbox's own handler answered (their journal entry is the pipeline's),
 * taken off when msw announces the answer. It announces none for a cut connection, through
 * `getResponse` or to a request aborted first: past 4,096 (far more than in flight) the oldest go.
 */
export const answeredHere = new BoundedSet<string>(4096)

/**
 * The MSW handler of the browser worker, msw/node and Storybook: one handler that hands the
 * sandbox's requests (`Places.claim` says which) to the app's front door (`SandboxApp.fetch`).
 */
export function createHandlers(app: HandlerApp, options: HandlerOptions = {}): HttpHandler[] {
  const places = new Places(options.origins ?? [])
  const meta = { clientAddress: options.clientAddress ?? 'page', fetch: upstreamFetch, via: 'msw' as const }
  // The request split once, here: the app reads the same target (its base path read off).
  const claimed = new WeakMap<Request, Target>()
  const claims = ({ request }: { request: Request }) => {
    const target = places.claim(targetOf(request), request.method, app.matcher)
    if (target !== undefined) claimed.set(request, target)
    return target !== undefined
  }
  // A cut connection (an override's `{error: "network"}`) is MSW's network error: the fetch fails.
  return [
    new ClaimHandler(claims, ({ request, requestId }) => {
      answeredHere.add(requestId)
      const cut = () => (answeredHere.delete(requestId), HttpResponse.error())
      return app.fetch(request, { ...meta, target: claimed.get(request) }).then((r) => (r.status === 0 ? cut() : r))
    }),
  ]
}

/**
 * `http.all(claims, resolver)` without the cookies msw reads for every request it matches (a
 * share of the page's time: `node bench/profile-browser.mjs`); the sandbox reads the request's
 * `cookie` header. handlers.test.ts compares the two.
 */
export class ClaimHandler extends HttpHandler {
  constructor(
    private readonly claims: (args: { request: Request }) => boolean,
    resolver: ConstructorParameters<typeof HttpHandler>[2],
  ) {
    super(/.+/, claims, resolver)
  }

  override parse(args: { request: Request }) {
    return Promise.resolve({ match: { matches: this.claims(args), params: {} }, cookies: {} })
  }
}

/**
 * The upstream is reached around MSW, which would otherwise answer the forwarded request itself.
 * The body is read first: msw's interceptors refuse to send on a streamed request body (they
 * buffer bodies anyway), so in the MSW runtimes only the answer streams.
 */
async function upstreamFetch(request: Request): Promise<Response> {
  const body = request.body ? await request.arrayBuffer() : undefined
  // What msw's bypass() marks, on a URL and init: a Request object built here can be another
  // runtime's subclass (@hono/node-server replaces the global one) that msw's interceptor rebuilds badly.
  const headers = new Headers(request.headers)
  headers.append('accept', 'msw/passthrough')
  return fetch(request.url, {
    method: request.method,
    headers,
    body,
    redirect: request.redirect,
    signal: request.signal,
  })
}
