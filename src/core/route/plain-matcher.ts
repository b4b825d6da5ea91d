import { type Match, type Matcher, decode } from './matcher.js'
import type { RouteDef } from './route.js'

/**
 * The matcher as plainly as it can be written: each route's path made a pattern, the table
 * scanned in order. Too slow to serve (a scan of every route per request); the reference the
 * tuned `RouteMatcher` (matcher.ts) is checked against, never served.
 */
export class PlainMatcher implements Matcher {
  readonly #patterns: { route: RouteDef; names: string[]; pattern: RegExp }[]

  constructor(routes: readonly RouteDef[]) {
    this.#patterns = routes.map((route) => {
      const names: string[] = []
      const source = route.path.split('/').map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        names.push(segment.slice(1))
        return '([^/]+)'
      })
      return { route, names, pattern: new RegExp(`^${source.join('/')}$`) }
    })
  }

  match(method: string, path: string): Match {
    const matching = this.#patterns.filter((p) => p.pattern.test(path))
    const hit = matching.find((p) => p.route.method === method)
    if (hit) {
      const values = hit.pattern.exec(path)!.slice(1)
      return { route: hit.route, params: Object.fromEntries(hit.names.map((name, i) => [name, decode(values[i])])) }
    }
    // 405 with the methods of the first path of the table that matches, in the table's order.
    const first = matching[0]?.route.path
    return { allowed: [...new Set(matching.filter((p) => p.route.path === first).map((p) => p.route.method))] }
  }

  serves(method: string, path: string): boolean {
    return this.match(method, path).route !== undefined
  }
}
