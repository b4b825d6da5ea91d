import { http, type HttpHandler } from 'msw'
import type { SandboxApp } from '../../core/app/app.js'
import { ownedPath } from '../../core/app/matcher.js'

export interface HandlerOptions {
  /** Origins to answer (`https://api.example.com`, `/backend`); default: any, see `createHandlers`. */
  origins?: string[]
  /** Who the caller is when there is no token (the rate-limited key); default `page`. */
  clientAddress?: string
}

/** What the handlers use of the app: the browser entry passes one whose state is still being prepared. */
export type HandlerApp = Pick<SandboxApp, 'matcher' | 'fetch'>

/**
 * The MSW handler of the browser worker, msw/node and Storybook: one handler that hands the
 * sandbox's requests to the app's front door (`SandboxApp.fetch`). Which requests are the
 * sandbox's: with `origins`, `/api/...` and `/__sandbox...` there; without, the same on the
 * page's own origin, and on any other origin only what a route serves, so a third-party SDK's
 * `/api/...` call (an error reporter, a map tiles API) goes to the network untouched.
 */
export function createHandlers(app: HandlerApp, options: HandlerOptions = {}): HttpHandler[] {
  const places = new Places(options.origins ?? [])
  const meta = { clientAddress: options.clientAddress ?? 'page', fetch: upstreamFetch }
  const claimed = new WeakMap<Request, string>()
  const claims = ({ request }: { request: Request }) => {
    const place = places.locate(new URL(request.url))
    if (!place || !(place.home ? ownedPath(place.path) : app.matcher.serves(request.method, place.path))) return false
    claimed.set(request, place.path)
    return true
  }
  return [http.all(claims, ({ request }) => app.fetch(request, { ...meta, path: claimed.get(request) }))]
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
  return fetch(request.url, { method: request.method, headers, body, redirect: request.redirect, signal: request.signal })
}

/**
 * Where the sandbox answers: named places (an origin, `*` standing for anything in it, and an
 * optional base path; a relative entry such as `/backend` is resolved against the page, as MSW
 * resolves relative paths), or, with none named, any origin.
 */
class Places {
  readonly #entries: Place[]

  constructor(entries: readonly string[]) {
    this.#entries = entries.map((text) => new Place(text))
  }

  /** The path the route table sees at `url`, and whether it is the app's own place (named, or the page's origin). */
  locate(url: URL): { path: string; home: boolean } | undefined {
    if (!this.#entries.length) return { path: url.pathname, home: typeof location !== 'undefined' && url.origin === location.origin }
    for (const entry of this.#entries) {
      const path = entry.path(url)
      if (path !== undefined) return { path, home: true }
    }
    return undefined
  }
}

class Place {
  readonly #relative: boolean
  #parsed: { href: string | undefined; origin: RegExp; base: string } | undefined

  constructor(readonly text: string) {
    this.#relative = !/^[a-z][a-z\d+\-.]*:\/\//i.test(text)
  }

  /** The rest of `url`'s path after this place, or undefined when `url` is elsewhere. */
  path(url: URL): string | undefined {
    const place = this.#resolve()
    if (!place || !place.origin.test(url.origin)) return undefined
    const { pathname } = url
    if (!place.base) return pathname
    if (pathname !== place.base && !pathname.startsWith(`${place.base}/`)) return undefined
    return pathname.slice(place.base.length) || '/'
  }

  #resolve() {
    // A relative entry follows the page as it navigates.
    const href = this.#relative ? (typeof location === 'undefined' ? undefined : location.href) : undefined
    if (this.#relative && href === undefined) return undefined
    if (this.#parsed && this.#parsed.href === href) return this.#parsed
    const absolute = href === undefined ? this.text : decodeURI(new URL(`${encodeURI(this.text)}/`, href).href)
    let [, origin, base] = /^([a-z][a-z\d+\-.]*:\/\/[^/]*)(.*)$/i.exec(absolute)!
    // As URL writes an origin (`https://x:443` is `https://x`), unless a wildcard stands in it.
    if (!origin.includes('*')) origin = new URL(origin).origin
    const pattern = new RegExp(`^${origin.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`, 'i')
    return (this.#parsed = { href, origin: pattern, base: base.replace(/\/+$/, '') })
  }
}
