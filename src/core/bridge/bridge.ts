import type { RouteInfo } from '../route/types.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { Checker } from './check.js'
import { driftWalk, type DriftReport, operationName } from './drift.js'
import { driftLog } from './findings.js'
import { forward, readUpTo, redactedHeaders, type UpstreamFetch } from './passthrough.js'
import type { UpstreamOptions } from './upstream.js'
import type { Target } from '../http/url.js'

/** Past this many bytes an answer is passed on but not checked: the check holds a copy of it. */
const CHECK_LIMIT = 4 * 1_048_576
/** The journal keeps at most this much of a request body it never reads otherwise. */
const JOURNAL_BODY_LIMIT = 65_536

export interface PassMeta {
  /** The request split once (the app's front door did). */
  target: Target
  /** Headers the runtime adds to every answer (CORS). */
  headers?: Record<string, string>
  fetch?: UpstreamFetch
  log?: (line: string) => void
}

/**
 * The bridge of one app to its upstream: which requests go there, forwarding them, and
 * checking what comes back against the app's own OpenAPI document, off the answer's path.
 */
export class Bridge {
  #checker: Promise<Checker> | undefined

  constructor(
    readonly upstream: UpstreamOptions,
    private readonly document: () => Promise<Record<string, unknown>>,
  ) {}

  /**
   * Loaded on first use: the validator is a large part of the browser entry's budget, and a page
   * without an upstream never needs it (test/browser/sandbox.test.ts holds the budget; bench:
   * `npm run build:browser`; docs/benchmarks-history.md).
   */
  checker(): Promise<Checker> {
    return (this.#checker ??= import('./check.js').then(async ({ Checker }) => new Checker(await this.document())))
  }

  /** The walk of every GET operation, its results recorded in the sandbox's findings. */
  async walk(
    routes: readonly RouteInfo[],
    sandbox: Sandbox,
    fetchFn?: (url: string, init: RequestInit) => Promise<Response>,
  ): Promise<DriftReport> {
    const report = await driftWalk(routes, await this.checker(), this.upstream, fetchFn)
    const log = driftLog(sandbox)
    for (const op of report.operations) if (op.status !== 'skipped') log.record(op, report.checkedAt!)
    return report
  }

  /**
   * Forwards a request and answers the upstream's answer. The journal entry, the check and its
   * findings follow once the body has passed: the caller never waits for them.
   */
  async pass(request: Request, sandbox: Sandbox, route: RouteInfo | undefined, meta: PassMeta): Promise<Response> {
    const started = performance.now()
    const url = meta.target
    const requestHeaders = redactedHeaders(request.headers)
    const { response, copy, requestCopy } = await forward(
      request,
      this.upstream,
      url.base + url.path + url.search,
      meta.fetch,
    )
    const durationMs = Math.round((performance.now() - started) * 100) / 100
    for (const [name, value] of Object.entries(meta.headers ?? {})) response.headers.set(name, value)
    meta.log?.(`${request.method} ${url.base}${url.path}${url.search} ${response.status} ${durationMs}ms [passthrough]`)
    const responseHeaders = redactedHeaders(response.headers)
    void this.#after(sandbox, route, request.method, url, {
      status: response.status,
      durationMs,
      requestHeaders,
      responseHeaders,
      copy,
      requestCopy,
    })
    return response
  }

  async #after(
    sandbox: Sandbox,
    route: RouteInfo | undefined,
    method: string,
    url: Target,
    a: {
      status: number
      durationMs: number
      requestHeaders: Record<string, string>
      responseHeaders: Record<string, string>
      copy: ReadableStream<Uint8Array> | null
      requestCopy: ReadableStream<Uint8Array> | null
    },
  ): Promise<void> {
    try {
      const [sent, answered] = await Promise.all([
        readUpTo(a.requestCopy, JOURNAL_BODY_LIMIT),
        readUpTo(a.copy, CHECK_LIMIT),
      ])
      // Journaled first: whatever the check makes of the answer, the request is on record.
      const entry = sandbox.journal.add(
        {
          method,
          path: url.path,
          query: url.search,
          status: a.status,
          faults: [],
          durationMs: a.durationMs,
          at: sandbox.iso(),
        },
        {
          origin: url.origin + url.base,
          request: { headers: a.requestHeaders, body: sent.text },
          response: { headers: a.responseHeaders, body: answered.text },
        },
      )
      // Only an operation of the sandbox's own document can be checked; a route it lacks has none.
      if (!route || !a.copy || answered.cut) return
      const { findings, reason } = (await this.checker()).checkAnswer(
        route,
        a.status,
        a.responseHeaders['content-type'] ?? null,
        answered.text,
      )
      entry.drift = findings
      const operation = operationName(route)
      driftLog(sandbox).record(
        {
          operation,
          path: url.path,
          status: findings.length ? 'drift' : 'ok',
          httpStatus: a.status,
          findings,
          ...(reason ? { reason } : {}),
        },
        new Date().toISOString(),
      )
      sandbox.events.emit({
        type: 'drift',
        data: { id: entry.id, operation, path: url.path, httpStatus: a.status, findings },
      })
    } catch (error) {
      // A failed check must not fail the answer that already left.
      console.error('fleet-sandbox: checking a passthrough answer failed:', error)
    }
  }
}
