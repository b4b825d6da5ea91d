import { http, type HttpHandler } from 'msw'
import { type SandboxApp, unmatched } from '../../core/app/app.js'
import type { RouteDef } from '../../core/app/route.js'

export interface HandlerOptions {
  /** Origins to answer (`https://api.example.com`); default: `/api/...` on any origin. */
  origins?: string[]
  /** Who the caller is when there is no token (the rate-limited key); default `page`. */
  clientAddress?: string
}

/** What the handlers use of the app: the browser entry passes one whose state is still being prepared. */
export type HandlerApp = Pick<SandboxApp, 'routes' | 'handle'> & Partial<Pick<SandboxApp, 'passesThrough' | 'passthrough'>>

/**
 * MSW request handlers derived from the route table: the same `handle` pipeline the Node
 * server runs. Used by the browser worker, `msw/node` and Storybook.
 *
 * One handler, not one per route: MSW tries handlers in order and compiles each one's path
 * pattern on every request, so with a handler per route a request paid for every route before
 * its own. The table below is built once and answers as those patterns did.
 */
export function createHandlers(app: HandlerApp, options: HandlerOptions = {}): HttpHandler[] {
  const table = new RouteTable(app.routes, options.origins?.length ? options.origins : ['*'])
  const meta = { clientAddress: options.clientAddress ?? 'page', fetch: upstreamFetch }
  const found = new WeakMap<Request, Found>()
  const claims = ({ request }: { request: Request }) => {
    const match = table.find(request.method, new URL(request.url))
    if (match) found.set(request, match)
    return match !== undefined
  }
  return [
    http.all(claims, ({ request }) => {
      const match = found.get(request) ?? table.find(request.method, new URL(request.url))!
      if (app.passesThrough?.(request.url, match.route, match.allowed)) return app.passthrough!(request, meta, match.route)
      return match.route ? app.handle(match.route, request, match.params, meta) : unmatched(request, match.allowed)
    }),
  ]
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

/** A route to run, or else the methods its path allows (405) or none (404). */
export interface Found {
  route?: RouteDef
  params: Record<string, string>
  allowed: string[]
}

interface Path {
  /** Place of the path's first route in the table: the first matching path answers 405. */
  order: number
  /** Param names by segment position. */
  names: Map<number, string>
  methods: string[]
  routes: { order: number; route: RouteDef }[]
}

interface Branch {
  literals: Map<string, Branch>
  param?: Branch
  paths: Path[]
}

const branch = (): Branch => ({ literals: new Map(), paths: [] })

/**
 * The routes in a segment tree, matched with the rules of the MSW path patterns the handlers
 * used to be (`<origin or *><route path>`, path-to-regexp 6): a route path may follow anything
 * on a `*` origin (`(.*)/api/layers`), literals are case-insensitive, one trailing slash is
 * allowed, and params are URI-decoded. The first route in table order wins; otherwise the
 * first path matching in any method answers 405, and `/api/*`, `/__sandbox`, `/__sandbox/*`
 * answer 404. Anything else is not claimed (MSW passes it to the network).
 */
export class RouteTable {
  readonly #root = branch()
  /** Segment counts of the paths, longest first. */
  readonly #lengths: number[]
  readonly #prefixes: Prefix[]

  constructor(routes: readonly RouteDef[], origins: readonly string[]) {
    const paths = new Map<string, Path>()
    routes.forEach((route, order) => {
      let path = paths.get(route.path)
      if (!path) {
        path = { order: paths.size, names: new Map(), methods: [], routes: [] }
        paths.set(route.path, path)
        let at = this.#root
        route.path.split('/').slice(1).forEach((segment, i) => {
          if (segment.startsWith(':')) {
            path!.names.set(i, segment.slice(1))
            at = at.param ??= branch()
          } else {
            const key = segment.toLowerCase()
            at = at.literals.get(key) ?? at.literals.set(key, branch()).get(key)!
          }
        })
        at.paths.push(path)
      }
      path.methods.push(route.method)
      path.routes.push({ order, route })
    })
    this.#lengths = [...new Set(routes.map((r) => r.path.split('/').length - 1))].sort((a, b) => b - a)
    this.#prefixes = origins.map((o) => new Prefix(o.replace(/\/$/, '')))
  }

  find(method: string, url: URL): Found | undefined {
    // What MSW matched a pattern against: origin and path, no query.
    const full = url.origin + url.pathname
    const lower = full.toLowerCase()
    const upper = method.toUpperCase()
    // One trailing slash may follow a route path.
    const trimmed = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname
    const segments = trimmed.split('/').slice(1)
    const pathStart = full.length - url.pathname.length

    let best: { order: number; route: RouteDef; path: Path; tail: string[] } | undefined
    const byPrefix: { path: Path; tail: string[] }[][] = this.#prefixes.map(() => [])
    for (const length of this.#lengths) {
      if (length > segments.length) continue
      const tail = segments.slice(segments.length - length)
      // Where the route path starts: everything before it must be the origin (or anything, for `*`).
      const head = full.slice(0, pathStart + trimmed.length - tail.join('/').length - 1)
      const heads = this.#prefixes.map((p) => p.accepts(head))
      if (!heads.includes(true)) continue
      for (const path of this.#walk(this.#root, tail, 0, [])) {
        heads.forEach((ok, i) => ok && byPrefix[i].push({ path, tail }))
        for (const r of path.routes) {
          if (r.route.method === upper && (!best || r.order < best.order)) best = { ...r, path, tail }
        }
      }
    }
    if (best) return { route: best.route, params: params(best.path, best.tail), allowed: [] }

    for (const [i, prefix] of this.#prefixes.entries()) {
      const first = byPrefix[i].sort((a, b) => a.path.order - b.path.order)[0]
      if (first) return { params: {}, allowed: first.path.methods }
      if (prefix.before(full, lower, '/api/') || prefix.before(full, lower, '/__sandbox/') || prefix.endsWith(full, lower, '/__sandbox')) {
        return { params: {}, allowed: [] }
      }
    }
    return undefined
  }

  #walk(at: Branch, tail: string[], i: number, out: Path[]): Path[] {
    if (i === tail.length) {
      out.push(...at.paths)
      return out
    }
    if (tail[i] === '') return out
    const literal = at.literals.get(tail[i].toLowerCase())
    if (literal) this.#walk(literal, tail, i + 1, out)
    if (at.param) this.#walk(at.param, tail, i + 1, out)
    return out
  }
}

function params(path: Path, tail: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [i, name] of path.names) out[name] = decode(tail[i])
  return out
}

/** A malformed escape stays as written, as the Hono server leaves it (MSW used to throw: a 500). */
function decode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** One entry of `origins`: `*` (any), or an origin matched case-insensitively, where `*` stands for anything. */
class Prefix {
  readonly #pattern: RegExp | undefined
  readonly #relative: boolean
  /** A relative entry's pattern for the page it was last resolved against (pages navigate). */
  #resolved: { href: string; pattern: RegExp } | undefined

  constructor(readonly text: string) {
    this.#relative = text !== '*' && !/^([a-z][a-z\d+\-.]*:)?\/\//i.test(text)
    this.#pattern = text === '*' ? undefined : Prefix.#compile(text)
  }

  static #compile(text: string): RegExp {
    return new RegExp(`^${text.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i')
  }

  accepts(head: string): boolean {
    if (!this.#pattern) return true
    // A relative entry (`/backend`) is resolved against the page, as MSW resolves relative paths.
    if (this.#relative) {
      if (typeof location === 'undefined') return false
      const href = location.href
      if (this.#resolved?.href !== href) {
        this.#resolved = { href, pattern: Prefix.#compile(decodeURI(new URL(`${encodeURI(this.text)}/`, href).href).replace(/\/$/, '')) }
      }
      return this.#resolved.pattern.test(head)
    }
    return this.#pattern.test(head)
  }

  /** Whether `marker` (lower case) occurs in the URL right after a part this prefix accepts. */
  before(full: string, lower: string, marker: string): boolean {
    for (let at = lower.indexOf(marker); at !== -1; at = lower.indexOf(marker, at + 1)) {
      if (this.accepts(full.slice(0, at))) return true
    }
    return false
  }

  /** Whether the URL is a part this prefix accepts, then `marker`, then at most a slash. */
  endsWith(full: string, lower: string, marker: string): boolean {
    const end = lower.endsWith('/') ? lower.length - 1 : lower.length
    return lower.slice(0, end).endsWith(marker) && this.accepts(full.slice(0, end - marker.length))
  }
}
