import type { RouteInfo } from '../route/types.js'
import type { Checker } from './check.js'
import { type DriftOperation, type DriftReport, report } from './findings.js'
import { documentPath, UPSTREAM_TIMEOUT_MS, unreachable, upstreamUrl } from './reach.js'
import type { UpstreamOptions } from './upstream.js'

type Fetch = (input: string, init: RequestInit) => Promise<Response>

export { type DriftOperation, type DriftReport, report }

export function operationName(route: Pick<RouteInfo, 'method' | 'path'>): string {
  return `${route.method} ${documentPath(route.path)}`
}

/**
 * The drift walk: every GET operation under `/api`, lists first, then the routes whose path
 * parameter is an id their collection's list gave. GET only: the retry guidance says writes
 * have external effects, and the walk never causes one.
 */
export async function driftWalk(
  routes: readonly RouteInfo[],
  checker: Checker,
  upstream: UpstreamOptions,
  fetchFn: Fetch = fetch,
  onAnswer?: (route: RouteInfo, body: unknown) => void,
): Promise<DriftReport> {
  const gets = routes.filter((r) => r.method === 'GET' && r.path.startsWith('/api/') && r.auth.kind !== 'control')
  const lists = gets.filter((r) => !r.path.includes(':'))
  const byId = gets.filter((r) => r.path.includes(':'))
  const ids = new Map<string, string>()
  const operations: DriftOperation[] = []
  for (const route of [...lists, ...byId]) {
    const skip = (reason: string) =>
      operations.push({
        operation: operationName(route),
        path: documentPath(route.path),
        status: 'skipped',
        httpStatus: null,
        findings: [],
        reason,
      })
    if (route.auth.kind === 'portal') {
      skip(`needs a client-portal token (role ${route.auth.role}); the walk's credential is a backoffice token`)
      continue
    }
    if (route.auth.kind === 'user' && !upstream.token) {
      skip('needs a credential: give --upstream-token')
      continue
    }
    const required = requiredQuery(checker, route)
    if (required.length) {
      skip(
        `needs the query parameter${required.length > 1 ? 's' : ''} ${required.join(', ')}, which the walk cannot choose`,
      )
      continue
    }
    let path = route.path
    const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1])
    if (params.length) {
      const id = route.idOf && params.length === 1 ? ids.get(route.idOf) : undefined
      if (id === undefined) {
        skip(
          route.idOf
            ? `no ${route.idOf} id: their list gave no record`
            : `no list gives its ${params.map((p) => `{${p}}`).join(', ')}`,
        )
        continue
      }
      path = route.path.replace(`:${params[0]}`, encodeURIComponent(id))
    }
    const op = await visit(route, path, checker, upstream, fetchFn)
    operations.push(op.result)
    if (op.body !== undefined) onAnswer?.(route, op.body)
    if (route.lists && op.body !== undefined && !ids.has(route.lists)) {
      const id = firstId(op.body)
      if (id !== undefined) ids.set(route.lists, id)
    }
  }
  return report(upstream.url, new Date().toISOString(), operations)
}

async function visit(
  route: RouteInfo,
  path: string,
  checker: Checker,
  upstream: UpstreamOptions,
  fetchFn: Fetch,
): Promise<{ result: DriftOperation; body?: unknown }> {
  const operation = operationName(route)
  const timeoutMs = upstream.timeoutMs ?? UPSTREAM_TIMEOUT_MS
  let res: Response
  let text: string
  try {
    res = await fetchFn(upstreamUrl(upstream.url, path), {
      method: 'GET',
      headers: { accept: 'application/json', ...(upstream.token ? { authorization: `Bearer ${upstream.token}` } : {}) },
      // A redirect is an answer to check, never a way to send the credential to another host.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    })
    text = await res.text()
  } catch (error) {
    return {
      result: {
        operation,
        path,
        status: 'unreachable',
        httpStatus: null,
        findings: [],
        reason: unreachable(upstream.url, error, timeoutMs),
      },
    }
  }
  const { findings, reason } = checker.checkAnswer(route, res.status, res.headers.get('content-type'), text)
  let body: unknown
  if (res.ok) {
    try {
      body = JSON.parse(text)
    } catch {
      /* the checker reported it */
    }
  }
  return {
    result: {
      operation,
      path,
      status: findings.length ? 'drift' : 'ok',
      httpStatus: res.status,
      findings,
      ...(reason ? { reason } : {}),
    },
    body,
  }
}

function requiredQuery(checker: Checker, route: RouteInfo): string[] {
  const op = checker.document.paths?.[documentPath(route.path)]?.get
  return ((op?.parameters ?? []) as { in?: string; name?: string; required?: boolean }[])
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => p.name!)
}

/** The id of the first record of a list answer: the first list of objects with an `id` (or `_id`), breadth first (a loop, however big or deep). */
export function firstId(body: unknown): string | undefined {
  const queue: unknown[] = [body]
  for (let i = 0; i < queue.length; i++) {
    const value = queue[i]
    if (Array.isArray(value)) {
      const first = value[0] as Record<string, unknown> | undefined
      const id = first && typeof first === 'object' ? (first.id ?? first._id) : undefined
      if (typeof id === 'string' || typeof id === 'number') return String(id)
    } else if (value && typeof value === 'object') {
      for (const v of Object.values(value)) queue.push(v)
    }
  }
  return undefined
}

/** 0 when nothing drifts, 1 when something does, 2 when the walk could not run (no answer at all). */
export function exitCode(report: DriftReport): 0 | 1 | 2 {
  if (!report.upstream || !report.operations.some((op) => op.httpStatus !== null)) return 2
  return report.summary.drift > 0 ? 1 : 0
}
