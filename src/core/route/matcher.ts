import type { Match, Matcher, RouteDef } from './context.js'

export type { Match, Matcher }

/** The sandbox's own part of an origin: `/api/...` and the control API. */
export const ownedPath = (path: string): boolean => path.startsWith('/api/') || controlPath(path)
/** `/__sandbox` and below: the control API, with its own CORS rule. */
export const controlPath = (path: string): boolean =>
  path.startsWith('/__sandbox') && (path.length === 10 || path[10] === '/')

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
const NOT_FOUND: Match = { allowed: [] }

/**
 * The one matcher every runtime goes through (`SandboxApp.fetch`), built once from the route
 * table: a segment tree of its paths. A path matches as the table writes it (case-sensitive,
 * no trailing slash); a param is one non-empty segment, URI-decoded (a malformed escape stays
 * as written). The first route of the table wins; a path served in other methods answers 405
 * with those of its first matching path; anything else 404. The paths without params (most
 * requests) are answered from a map made up front.
 */
export class RouteMatcher implements Matcher {
  readonly #root = branch()
  readonly #fixed = new Map<string, Match>()

  constructor(routes: readonly RouteDef[]) {
    const paths = new Map<string, Path>()
    routes.forEach((route, order) => {
      let path = paths.get(route.path)
      if (!path) {
        path = { order: paths.size, names: new Map(), methods: [], routes: [] }
        paths.set(route.path, path)
        let at = this.#root
        route.path
          .split('/')
          .slice(1)
          .forEach((segment, i) => {
            if (segment.startsWith(':')) {
              path!.names.set(i, segment.slice(1))
              at = at.param ??= branch()
            } else {
              at = at.literals.get(segment) ?? at.literals.set(segment, branch()).get(segment)!
            }
          })
        at.paths.push(path)
      }
      if (!path.methods.includes(route.method)) path.methods.push(route.method)
      path.routes.push({ order, route })
    })
    const methods = [...new Set(routes.map((r) => r.method))]
    for (const path of paths.keys()) {
      if (path.includes(':')) continue
      for (const method of methods) this.#fixed.set(`${method} ${path}`, this.#search(method, path))
    }
  }

  /** What answers `method path` (the URL's path, without the query). */
  match(method: string, path: string): Match {
    return this.#fixed.get(`${method} ${path}`) ?? this.#search(method, path)
  }

  /** Whether a route of the sandbox answers `method path`: runtimes that share an origin ask it. */
  serves(method: string, path: string): boolean {
    return this.match(method, path).route !== undefined
  }

  #search(method: string, path: string): Match {
    if (path[0] !== '/') return NOT_FOUND
    const segments = path.split('/').slice(1)
    const found = this.#walk(this.#root, segments, 0, [])
    if (!found.length) return NOT_FOUND
    let best: { order: number; route: RouteDef; path: Path } | undefined
    let first: Path | undefined
    for (const p of found) {
      if (!first || p.order < first.order) first = p
      for (const r of p.routes)
        if (r.route.method === method && (!best || r.order < best.order)) best = { ...r, path: p }
    }
    if (!best) return { allowed: first!.methods }
    const params: Record<string, string> = {}
    for (const [i, name] of best.path.names) params[name] = decode(segments[i])
    return { route: best.route, params }
  }

  #walk(at: Branch, segments: string[], i: number, out: Path[]): Path[] {
    if (i === segments.length) {
      out.push(...at.paths)
      return out
    }
    const literal = at.literals.get(segments[i])
    if (literal) this.#walk(literal, segments, i + 1, out)
    if (at.param && segments[i] !== '') this.#walk(at.param, segments, i + 1, out)
    return out
  }
}

/** A param as the route reads it: URI-decoded, or as written when the escape is malformed. */
export function decode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
