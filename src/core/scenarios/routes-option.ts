import { badRequest } from '../http/reply.js'

/**
 * The option every scenario takes, `routes` (docs/scenarios.md "On some routes only"): operation
 * ids, or `METHOD /path` patterns where `*` stands for one segment (and for any method). The
 * scenario then acts on those routes only.
 */
export const ROUTES_OPTION = 'routes'
const METHOD = /^(\*|GET|POST|PUT|PATCH|DELETE|HEAD)$/
const OPERATION = /^[A-Za-z][\w.-]{0,99}$/
const MAX_ENTRIES = 100

/** The routes a scope may name: the served table's operation id, method and path. */
export interface ScopedRoute {
  id: string
  method: string
  path: string
}

/** The option as given (a list, or text `a|b`), checked: a 400 naming `field` and the entry. */
export function parseRoutes(value: unknown, field: string, served?: readonly ScopedRoute[]): string[] {
  const list = typeof value === 'string' ? value.split('|') : value
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    list.length > MAX_ENTRIES ||
    !list.every((e) => typeof e === 'string')
  ) {
    throw badRequest(
      `${field}: must be a list of 1 to ${MAX_ENTRIES} operation ids or "METHOD /path" patterns (text form: a|b)`,
    )
  }
  return list.map((raw, i) => {
    const entry = raw.trim().replace(/\s+/g, ' ')
    const at = `${field}.${i}`
    if (entry.includes(' ')) {
      const [method, path, ...more] = entry.split(' ')
      if (more.length || !METHOD.test(method.toUpperCase()) || !path.startsWith('/'))
        throw badRequest(
          `${at}: "${raw}" must be an operation id or "METHOD /path" (METHOD one of GET, POST, PUT, PATCH, DELETE, HEAD or *; * in the path stands for one segment)`,
        )
      const pattern = `${method.toUpperCase()} ${path}`
      if (served && !served.some((r) => matches(pattern, r)))
        throw badRequest(`${at}: "${raw}" matches no route (docs/routes.md lists them)`)
      return pattern
    }
    if (!OPERATION.test(entry)) throw badRequest(`${at}: "${raw}" must be an operation id or "METHOD /path"`)
    if (served && !served.some((r) => r.id === entry))
      throw badRequest(`${at}: no operation "${entry}" (docs/routes.md lists them)`)
    return entry
  })
}

const segments = (path: string) => path.split('/').filter(Boolean)
const param = (s: string) => /^(\{[^}]+\}|:\w+)$/.test(s)

/** Whether one entry names `route`: its id, or a pattern whose segments fit the route's (`*` any one, `{x}` a param). */
export function matches(entry: string, route: ScopedRoute): boolean {
  const space = entry.indexOf(' ')
  if (space < 0) return entry === route.id
  const method = entry.slice(0, space)
  if (method !== '*' && method !== route.method) return false
  const want = segments(entry.slice(space + 1))
  const have = segments(route.path)
  return want.length === have.length && want.every((w, i) => w === '*' || w === have[i] || (param(w) && param(have[i])))
}

/** The ids of the routes a scope names, worked out once per scope (a request checks a Set). */
const resolved = new WeakMap<readonly string[], Set<string>>()
export function scopeIds(scope: readonly string[], served: readonly ScopedRoute[]): Set<string> {
  let ids = resolved.get(scope)
  if (!ids)
    resolved.set(scope, (ids = new Set(served.filter((r) => scope.some((e) => matches(e, r))).map((r) => r.id))))
  return ids
}
