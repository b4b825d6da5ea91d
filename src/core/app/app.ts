import { authorize, CONTROL_TOKEN_HEADER } from '../auth/guard.js'
import {
  HttpError,
  RawBody,
  RawJson,
  type Reply,
  badRequest,
  errorBody,
  errorReply,
  keepSent,
  notFound,
  responseHeaders,
  toResponse,
} from '../http/reply.js'
import { validate } from '../http/validate.js'
import { type Target, targetOf } from '../http/url.js'
import { QueryValidator } from '../http/query.js'
import { bodyRead, countFiles, readForm, readJson } from '../http/body.js'
import { overrideReply } from '../overrides/answer.js'
import { unsendable } from '../http/answer-rules.js'
import { scopeIds } from '../scenarios/routes-option.js'
import type { BodyInput } from '../sandbox/journal.js'
import type { Changes } from '../time-travel/changes.js'
import { withoutHeaders, withoutSecrets } from '../sandbox/journal-secrets.js'
import { type RouteContext, type RouteDef, servedRoutes } from './route.js'
import type { ServeOptions } from './types.js'
import { type Matcher, RouteMatcher, controlPath, ownedPath } from './matcher.js'
import { type ControlOrigins, guardControl } from '../control/origin.js'
import { readSnapshot } from '../control/snapshot-body.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { Sandboxes, type SandboxesOptions, validSandboxId } from '../sandbox/sandboxes.js'
import { SANDBOX_ID_RULE } from '../sandbox/sandbox-id.js'
import type { ActiveScenario, AppliedScenario } from '../scenarios/define.js'
import type { Bridge } from '../bridge/bridge.js'
import type { UpstreamFetch } from '../bridge/passthrough.js'
import { goesUpstream } from '../bridge/upstream.js'
import { type Pipeline, type RequestMeta, frontDoor } from './front-door.js'

export type { RequestMeta, Pipeline }
export { errorReply }

/** What the pipeline carries besides a runtime's meta: the headers the front door adds to every answer (CORS). */
type Served = RequestMeta & { headers?: Record<string, string> }

export interface SandboxAppOptions extends SandboxesOptions, ServeOptions {
  /** The route table, every domain's routes: the assembler passes it (src/apps/page-app.ts passes route-table.ts's), as it passes the accounts and scenarios. */
  routes: readonly RouteDef[]
  /** Handlers served at a path of their own beside the routes, behind the same door (the MCP server at `/mcp`: src/apps/server-app.ts). */
  mounts?: readonly Mount[]
}

/**
 * A handler the app serves at one path besides its route table, as hono's `app.mount` serves
 * another app: the same door (preflights, CORS, the unread body) and the same split request.
 * `open` is called once, with the app; what it answers may load itself on first use.
 */
export interface Mount {
  path: string
  open(app: SandboxApp): Pipeline
}

export const SCENARIO_HEADER = 'x-sandbox-scenario'
export const FAULT_HEADER = 'x-sandbox-fault'
export { CONTROL_TOKEN_HEADER }

type Applied = AppliedScenario

/**
 * The runtime-free core: the route table, the sandboxes, and `fetch`, the one front door every
 * runtime (Node server, MSW worker, msw/node, Durable Object) hands its requests to.
 */
export class SandboxApp {
  readonly sandboxes: Sandboxes
  readonly routes: RouteDef[]
  /** The one matcher of the served routes: what answers a method and path, and whether the sandbox serves it (its mounts' paths too). */
  readonly matcher: Matcher
  /** The scenarios this app was given. */
  readonly scenarios: ScenarioRegistry
  readonly #queries = new Map<RouteDef, QueryValidator<RouteContext['query']>>()
  readonly #openapi = new Map<string, Promise<Record<string, unknown>>>()
  #openapiFor = -1
  readonly #origins: ControlOrigins
  #bridge: Promise<Bridge> | undefined
  readonly #mounts: Map<string, Pipeline>

  constructor(readonly options: SandboxAppOptions) {
    this.sandboxes = new Sandboxes(options)
    this.#origins = {
      corsOrigins: options.corsOrigins,
      pageOrigin: options.pageOrigin,
      token: (options.control || undefined)?.token,
    }
    this.scenarios = this.sandboxes.shared.scenarios
    this.routes = servedRoutes(options.routes, options)
    this.#mounts = new Map((options.mounts ?? []).map((m) => [m.path, m.open(this)]))
    this.matcher = withMounts(new RouteMatcher(this.routes), this.#mounts)
    this.scenarios.serve(this.routes)
    const door = frontDoor(this.#origins, (request, meta, target, headers) =>
      this.#answer(request, headers ? { ...meta, headers } : meta, target),
    )
    this.fetch = (request, meta = {}) => door(request, meta)
  }

  /** The origins the control API and the mounts answer pages of. */
  get origins(): ControlOrigins {
    return this.#origins
  }

  /**
   * Whether the upstream answers `method path` rather than the sandbox: a path no route serves
   * in any method (an `/api/...` path), or a route an `--upstream-route` pattern names. The one
   * rule of every runtime (the workerd object asks it before a request may ride in a batch).
   */
  goesUpstream(
    method: string,
    path: string,
    found = this.matcher.match(method === 'HEAD' ? 'GET' : method, path),
  ): boolean {
    const upstream = this.options.upstream
    return (
      upstream !== undefined &&
      goesUpstream(
        upstream,
        path,
        found.route !== undefined && found.route.auth.kind !== 'control',
        found.allowed ?? [],
      )
    )
  }

  /**
   * The bridge to `options.upstream`, or none: loaded on first use, so a page without an
   * upstream never loads the validator (the browser entry's budget, test/browser/sandbox.test.ts).
   */
  bridge(): Promise<Bridge> | undefined {
    const upstream = this.options.upstream
    if (!upstream) return undefined
    return (this.#bridge ??= import('../bridge/bridge.js').then(
      ({ Bridge }) => new Bridge(upstream, () => this.openapi()),
    ))
  }

  /** Forwards a request to the upstream in the sandbox it selects, journaled there; `route` is the operation to check it against. */
  async passthrough(request: Request, meta: Served = {}, route?: RouteDef): Promise<Response> {
    const target = meta.target ?? targetOf(request)
    let sandbox: Sandbox
    try {
      sandbox = await this.#acquire(request, meta, target)
    } catch (error) {
      return toResponse(errorReply(undefined, error), meta.headers)
    }
    try {
      return await (
        await this.bridge()!
      ).pass(request, sandbox, route, {
        target,
        headers: meta.headers,
        fetch: meta.fetch,
        log: this.options.log,
      })
    } finally {
      this.sandboxes.release(sandbox)
    }
  }

  /** The sandbox a request selects (`x-sandbox-id`, read once with its target), held until `release`. */
  #acquire(request: Request, meta: RequestMeta, target: Target): Promise<Sandbox> {
    if (meta.sandbox) return Promise.resolve(meta.sandbox)
    const id = target.sandboxId
    if (id !== undefined && !validSandboxId(id)) throw badRequest(`x-sandbox-id: ${SANDBOX_ID_RULE}`)
    return this.sandboxes.acquire(id)
  }

  /**
   * OpenAPI 3.1 of every route this app serves, built once. Loaded on first use: a page that
   * never asks for the document does not carry its builder (the browser entry's budget,
   * test/browser/sandbox.test.ts).
   */
  openapi(issuer = ''): Promise<Record<string, unknown>> {
    // Built again when a scenario file changed (`--watch`): `x-sandbox-scenario` names the known ones.
    if (this.#openapiFor !== this.scenarios.version) {
      this.#openapiFor = this.scenarios.version
      this.#openapi.clear()
    }
    let doc = this.#openapi.get(issuer)
    if (!doc) {
      // One per served URL (OAuth's `resource` names it); a few at most, so the oldest goes.
      if (this.#openapi.size >= 8) this.#openapi.delete(this.#openapi.keys().next().value!)
      doc = import('../control/openapi.js').then(({ openapiDocument }) =>
        openapiDocument(this.routes, {
          strict: this.options.strict,
          scenarios: this.scenarios.list().map((d) => d.name),
          issuer: issuer || undefined,
        }),
      )
      this.#openapi.set(issuer, doc)
    }
    return doc
  }

  ready(): Promise<Sandbox> {
    return this.sandboxes.default
  }

  /**
   * The front door, all a runtime calls (front-door.ts: preflights, CORS and the unread body
   * over HTTP), then the pipeline: matches the request with the one matcher, selects its
   * sandbox (`x-sandbox-id`, parsed once) and answers. A request no route matches is answered
   * 404 (405 with `allow` for a path served in other methods), journaled like any other when
   * it is in the sandbox's paths (`/api/...`, `/__sandbox...`).
   */
  readonly fetch: (request: Request, meta?: RequestMeta) => Promise<Response>

  #answer(request: Request, meta: Served, target: Target): Promise<Response> {
    const path = target.path
    const mounted = this.#mounts.size ? this.#mounts.get(path) : undefined
    if (mounted) return mounted(request, meta, target, meta.headers)
    // HEAD is GET without the body, as HTTP servers answer it.
    const head = request.method === 'HEAD'
    // `/__sandbox/`, as a person types it, is the panel too (the table writes no trailing slash).
    const found = this.matcher.match(head ? 'GET' : request.method, path === '/__sandbox/' ? '/__sandbox' : path)
    if (this.options.upstream && this.goesUpstream(request.method, path, found))
      return this.passthrough(request, { ...meta, target }, found.route)
    const answer = this.#serve(found.route, found.params ?? {}, found.allowed, request, target, meta)
    return head ? answer.then((r) => new Response(null, r)) : answer
  }

  /**
   * Journals an answer the sandbox did not give: an app's own MSW handler (`server.use()`,
   * `worker.use()`) answered a request in the sandbox's paths. Marked `faults: ["use"]`, in the
   * world the request selects, with its bodies as the journal keeps any other.
   */
  async journalAnswer(request: Request, response: Response, target: Target): Promise<void> {
    let sandbox: Sandbox
    try {
      sandbox = await this.#acquire(request, {}, target)
    } catch {
      return
    }
    try {
      const { path } = target
      const [read, responseBody] = await Promise.all([bodyOf(request), bodyOf(response)])
      // The route's secrets (a sign-in's password) stay out, as for the sandbox's own answers.
      const secret = this.matcher.match(request.method === 'HEAD' ? 'GET' : request.method, path).route?.secret
      const requestBody = secret && read ? withoutSecrets(read, secret) : read
      const headers: Record<string, string> = {}
      response.headers.forEach((v, k) => (headers[k] = v))
      sandbox.journal.add(
        {
          method: request.method,
          path,
          query: target.search,
          status: response.status,
          faults: ['use'],
          durationMs: 0,
          at: sandbox.iso(),
        },
        {
          origin: target.origin + target.base,
          request: { headers: request.headers, body: requestBody },
          response: { headers, body: responseBody },
        },
      )
    } finally {
      this.sandboxes.release(sandbox)
    }
  }

  /** A request already matched to `route` (benchmarks and tests that skip matching). */
  handle(route: RouteDef, request: Request, params: Record<string, string>, meta: RequestMeta = {}): Promise<Response> {
    return this.#serve(route, params, undefined, request, meta.target ?? targetOf(request), meta)
  }

  async #serve(
    route: RouteDef | undefined,
    params: Record<string, string>,
    allowed: string[] | undefined,
    request: Request,
    target: Target,
    meta: Served,
  ): Promise<Response> {
    const started = performance.now()
    const faults: string[] = []
    // What the pipeline learnt of the request: its context (the account) and what a write changed.
    const seen: Seen = {}
    let sandbox: Sandbox | undefined
    let reply: Reply
    try {
      // Before anything else: a foreign page's request creates no sandbox and reads no body, on
      // every /__sandbox path, matched or not.
      if (route ? route.auth.kind === 'control' : controlPath(target.path))
        guardControl(request, this.#origins, target.origin, route?.auth.kind === 'control' && route.auth.page)
      sandbox = await this.#acquire(request, meta, target)
      reply = route
        ? await this.#run(route, request, target, params, sandbox, faults, meta, seen)
        : unmatchedReply(request.method, target.path, allowed!)
    } catch (error) {
      reply = errorReply(route, error)
    } finally {
      if (sandbox && !meta.sandbox) this.sandboxes.release(sandbox)
    }
    reply = writable(route, reply, faults)
    // What a repro bundle replays (src/core/time-travel/repro-log.ts): the write, its body and its account.
    if (sandbox && route)
      sandbox.repro.request(
        sandbox,
        route,
        request,
        target.path,
        target.search,
        reply,
        seen.ctx?.principal,
        seen.ctx?.at,
        bodyRead(request),
        (seen.ctx?.applied.length ?? 0) > 0,
      )
    const own: Record<string, string> = { ...reply.headers }
    const label =
      reply.override &&
      ((f: string) => (f === `override:${reply.override!.id}` ? `override:${reply.override!.label}` : f))
    if (faults.length) own[FAULT_HEADER] = [...new Set(faults)].map(label || String).join(',')
    if (route?.assumed) own['x-sandbox-assumed'] = 'true'
    const durationMs = Math.round((performance.now() - started) * 100) / 100
    this.options.log?.(
      `${request.method} ${target.base}${target.path}${target.search} ${reply.status} ${durationMs}ms${faults.length ? ` [${faults.join(',')}]` : ''}`,
    )
    // Control calls (the panel's own) are not journaled unless they changed the world (a DTE
    // resolved, a rewind), nor what is not the API's (a browser's /favicon.ico).
    const journaled = route
      ? route.auth.kind !== 'control' || seen.changes !== undefined || route.journaled === true
      : ownedPath(target.path)
    if (!sandbox || !journaled) return toResponse({ ...reply, headers: own }, meta.headers)
    // The body is encoded once, for the answer and for the journal.
    const { body, text } = encoded(reply.body)
    const answer = { ...reply, headers: own, body }
    const headers = responseHeaders(answer, meta.headers)
    // A cut connection is journaled as status 0; each runtime ends the connection (docs/your-own-answers.md).
    const response = reply.cut ? Response.error() : toResponse(answer, undefined, headers)
    if (meta.marks && !reply.cut) keepSent(response, body)
    sandbox.journal.add(
      // The path the route table saw, as the repro log keeps it; the base path stays in the URL (`origin`).
      {
        method: request.method,
        path: target.path,
        query: target.search,
        status: reply.status,
        faults: faults.length ? [...new Set(faults)] : [],
        durationMs,
        at: sandbox.iso(),
        changes: seen.changes,
      },
      // A body the route refused before reading it (401, 403) is not waited for: null.
      {
        origin: target.base ? target.origin + target.base : target.origin,
        request: {
          headers: meta.rawHeaders ?? request.headers,
          body: route?.secret ? withoutSecrets(bodyRead(request), route.secret) : bodyRead(request),
        },
        response: {
          headers: route?.secretHeaders ? withoutHeaders(headers, route.secretHeaders) : headers,
          body: text,
        },
      },
      meta.marks,
    )
    return response
  }

  /**
   * Scenarios in force for a request: the sandbox's plus those its header names (the header's
   * options win for a name in both), in the order of their `order`.
   */
  scenariosFor(sandbox: Sandbox, request: Request, route?: RouteDef): Applied[] {
    let active: ActiveScenario[] = sandbox.inForce()
    const header = request.headers.get(SCENARIO_HEADER)
    const named = header !== null && header.trim() !== ''
    // Most requests run with none: no arrays made for them.
    if (!named && active.length === 0) return []
    if (named) {
      const extra = this.scenarios.parseList(header, SCENARIO_HEADER)
      active = [...active.filter((a) => !extra.some((e) => e.name === a.name)), ...extra]
      return this.#apply(active, route)
    }
    // The sandbox's own schedule is one array until it changes: its list per route is worked out
    // once (again after a scenario file was reloaded).
    if (this.#appliedFor !== this.scenarios.version) {
      this.#applied = new WeakMap()
      this.#appliedFor = this.scenarios.version
    }
    let byRoute = this.#applied.get(active)
    if (!byRoute) this.#applied.set(active, (byRoute = new Map()))
    const key = route?.id ?? ''
    let list = byRoute.get(key)
    if (!list) byRoute.set(key, (list = this.#apply(active, route)))
    return list
  }

  #applied = new WeakMap<readonly ActiveScenario[], Map<string, Applied[]>>()
  #appliedFor = 0

  #apply(active: readonly ActiveScenario[], route: RouteDef | undefined): Applied[] {
    return (
      active
        .map((a) => ({ def: this.scenarios.get(a.name)!, options: a.options }))
        // A scenario scoped with `routes` acts on those routes only (routes-option.ts).
        .filter(
          (a) =>
            a.def && (!route || !a.options.routes || scopeIds(a.options.routes as string[], this.routes).has(route.id)),
        )
        .sort((a, b) => (a.def.order ?? 50) - (b.def.order ?? 50))
    )
  }

  async #run(
    route: RouteDef,
    request: Request,
    url: Target,
    params: Record<string, string>,
    sandbox: Sandbox,
    faults: string[],
    meta: RequestMeta,
    seen: Seen,
  ): Promise<Reply> {
    const applied = route.auth.kind === 'control' ? [] : this.scenariosFor(sandbox, request, route)
    const ctx = (seen.ctx = new Context(
      request,
      url.search,
      params,
      sandbox,
      route,
      this,
      meta.clientAddress,
      applied,
      faults,
    ))
    let reply: Reply
    try {
      reply = await this.#stages(route, ctx, applied, sandbox, seen)
    } catch (error) {
      reply = errorReply(route, error)
    }
    for (const a of applied) {
      if (!a.def.after || reply.override) continue
      try {
        reply = await a.def.after(ctx, reply, a.options)
      } catch (error) {
        reply = errorReply(route, error)
      }
    }
    return reply
  }

  async #stages(route: RouteDef, ctx: RouteContext, applied: Applied[], sandbox: Sandbox, seen: Seen): Promise<Reply> {
    // A world's own answers: an anonymous override before anything, the others after auth.
    // Only the overrides of this route are looked at (an index by operation).
    const overrides =
      sandbox.overrides.size > 0 && route.auth.kind !== 'control' ? sandbox.overrides.of(route.id) : undefined
    const anonymous = overrides?.anonymous && (await overrideReply(overrides, ctx, true))
    if (anonymous) return anonymous
    for (const a of applied) {
      const early = await a.def.edge?.(ctx, a.options)
      if (early) return early
    }
    await authorize(route, ctx, (this.options.control || undefined)?.token)
    const overridden = overrides?.signedIn && (await overrideReply(overrides, ctx, false))
    if (overridden) return overridden
    if (route.params) ctx.params = validate(route.params, ctx.params, 'path')
    if (route.query) ctx.query = this.#validQuery(route, ctx.search)
    // Every body is read here, before the write lock below: a slow upload holds up no other write.
    if (route.body === 'multipart') ctx.form = countFiles(await readForm(ctx.request))
    else if (route.body === 'snapshot') ctx.body = await readSnapshot(ctx.request)
    else if (route.body) ctx.body = validate(route.body, await readJson(ctx.request), 'body')
    for (const a of applied) {
      const early = await a.def.before?.(ctx, a.options)
      if (early) return early
    }
    if (ctx.request.method === 'GET') return route.handler(ctx)
    // A write sees one instant: the one a repro bundle keeps for it, so a replay writes the same dates.
    return sandbox.exclusive(() =>
      sandbox.clock.pinned(
        () => written(route, ctx, sandbox, seen),
        (at) => ((ctx as Context).at = at),
      ),
    )
  }

  #validQuery(route: RouteDef, search: string): RouteContext['query'] {
    let validator = this.#queries.get(route)
    if (!validator) this.#queries.set(route, (validator = new QueryValidator(route.query!)))
    return validator.validate(search)
  }
}

/** A request's context, and what it changed (a write's, taken for its journal entry). */
type Seen = { ctx?: Context; changes?: Changes }

/** Runs a write and takes what it changed before the next write may start (writes run one at a time). */
async function written(route: RouteDef, ctx: RouteContext, sandbox: Sandbox, seen: Seen): Promise<Reply> {
  try {
    return await route.handler(ctx)
  } finally {
    seen.changes = sandbox.changes.take()
  }
}

/**
 * What a route sees of its request. A class, so every context has one shape: an object literal
 * with a getter made a new hidden class per request (slower, and far more RSS: `npm run bench
 * -- --only memory`). Its functions are bound, so a scenario may pass them around.
 */
class Context implements RouteContext {
  query: RouteContext['query'] = {}
  body: unknown = undefined
  form?: FormData
  principal: RouteContext['principal'] = undefined
  /** The instant a write ran at (the clock is held for it). */
  at: number | undefined = undefined
  #url: URL | undefined

  constructor(
    readonly request: Request,
    readonly search: string,
    public params: Record<string, string>,
    readonly sandbox: Sandbox,
    readonly route: RouteDef,
    readonly app: SandboxApp,
    readonly clientAddress: string | undefined,
    readonly applied: readonly Applied[],
    private readonly faults: string[],
  ) {}

  /** A URL object only for the routes that ask for one. */
  get url(): URL {
    return (this.#url ??= new URL(this.request.url))
  }

  now = (): number => this.sandbox.clock.now()

  visible = (collection: string): boolean => {
    const hider = this.applied.find((a) => a.def.hides?.(collection, a.options))
    if (hider) this.faults.push(hider.def.name)
    return !hider
  }

  fault = (name: string): void => void this.faults.push(name)
}

/** A copy of a body for the journal (the original goes on to the app), none when it cannot be read. */
async function bodyOf(message: Request | Response): Promise<Uint8Array | null> {
  if (!message.body || message.bodyUsed) return null
  try {
    return new Uint8Array(await message.clone().arrayBuffer())
  } catch {
    return null
  }
}

/**
 * The reply with its body as JSON text, or a 500 naming why it cannot be written: a scenario
 * hook's answer (or an override kept from before its checks) that HTTP or JSON cannot carry
 * stopped workerd's front and gave the Node server a bare 500 journaled as the reply's status;
 * now every engine answers, and journals, this. The body is encoded here once, as before.
 */
function writable(route: RouteDef | undefined, reply: Reply, faults: string[]): Reply {
  let problem: string | undefined
  try {
    if (reply === null || typeof reply !== 'object') problem = 'it is not an answer {status, headers?, body?}'
    else if (reply.cut) return reply
    else problem = unsendable(reply.status, reply.headers, reply.body)
    if (!problem) {
      const body = reply.body
      if (body instanceof ReadableStream && body.locked) problem = 'its body stream is being read already'
      else if (
        body === undefined ||
        body === null ||
        body instanceof ReadableStream ||
        body instanceof RawJson ||
        body instanceof RawBody
      )
        return reply
      else {
        const json = JSON.stringify(body)
        if (json === undefined) problem = `its body (${typeof body}) is not JSON`
        else return { ...reply, body: new RawJson(json) }
      }
    }
  } catch (error) {
    problem = `it could not be read or written as JSON (${messageOf(error)})`
  }
  faults.push('bad-answer')
  return {
    ...errorReply(route, new HttpError(500, `answer: cannot be written: ${problem}`)),
    override: overrideOf(reply),
  }
}

function messageOf(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error).slice(0, 200)
  } catch {
    return 'an unreadable error'
  }
}

function overrideOf(reply: unknown): Reply['override'] {
  try {
    return (reply as Reply | null)?.override
  } catch {
    return undefined
  }
}

/** A reply's body as sent, and its text or bytes for the journal. */
function encoded(body: unknown): { body: unknown; text: BodyInput } {
  if (body === undefined || body === null || body instanceof ReadableStream) return { body, text: null }
  if (body instanceof RawJson) return { body, text: body.kept ?? body.text }
  if (body instanceof RawBody) return { body, text: body.text }
  const json = JSON.stringify(body)
  return { body: new RawJson(json), text: json }
}

/** 404 and 405 answers for requests no route matches, in the standard error shape. */
function unmatchedReply(method: string, path: string, allowed: string[]): Reply {
  if (!allowed.length) return errorReply(undefined, notFound(`path: no route ${method} ${path}`))
  const list = allowed.join(', ')
  return {
    status: 405,
    body: errorBody('standard', 405, `method: ${method} is not allowed on ${path}; allowed: ${list}`),
    headers: { allow: list },
  }
}

/** The matcher with the mounts' paths served too (in any method: the mount answers what it does not take). */
function withMounts(matcher: RouteMatcher, mounts: ReadonlyMap<string, unknown>): Matcher {
  if (!mounts.size) return matcher
  return {
    match: (method, path) => matcher.match(method, path),
    serves: (method, path) => mounts.has(path) || matcher.serves(method, path),
  }
}
