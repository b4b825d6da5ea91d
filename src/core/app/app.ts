import { CONTROL_TOKEN_HEADER } from '../auth/guard.js'
import { badRequest, errorReply, toResponse } from '../http/reply.js'
import { type Target, targetOf } from '../http/url.js'
import { scopeIds } from '../scenarios/routes-option.js'
import { scrubBody, scrubHeaders, scrubQuery } from '../sandbox/credentials.js'
import { type RouteDef, servedRoutes } from '../route/route.js'
import type { ServeOptions } from '../route/types.js'
import { type Matcher, RouteMatcher } from '../route/matcher.js'
import type { ControlOrigins } from '../control/origin.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { Sandboxes, type SandboxesOptions, validSandboxId } from '../sandbox/sandboxes.js'
import { SANDBOX_ID_RULE } from '../sandbox/sandbox-id.js'
import type { ActiveScenario, AppliedScenario } from '../scenarios/define.js'
import type { Bridge } from '../bridge/bridge.js'
import { goesUpstream } from '../bridge/upstream.js'
import { type Pipeline, type RequestMeta, frontDoor } from './front-door.js'
import { Exchange, FAULT_HEADER, SCENARIO_HEADER, type Served, type Stage, type StageApp } from '../route/exchange.js'
import { compose } from '../route/compose.js'

export type { RequestMeta, Pipeline }
export { errorReply }

export interface SandboxAppOptions extends SandboxesOptions, ServeOptions {
  /** The route table, every domain's routes: the assembler passes it (src/apps/page-app.ts passes route-table.ts's), as it passes the accounts and scenarios. */
  routes: readonly RouteDef[]
  /** The request pipeline, in order: the assembler passes it (src/apps/stages.ts), a new concern being one stage there. */
  stages: readonly Stage[]
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

export { CONTROL_TOKEN_HEADER, FAULT_HEADER, SCENARIO_HEADER, type Stage }

type Applied = AppliedScenario
const none: readonly Applied[] = []

/**
 * The runtime-free core: the route table, the sandboxes, and `fetch`, the one front door every
 * runtime (Node server, MSW worker, msw/node, Durable Object) hands its requests to.
 */
export class SandboxApp implements StageApp {
  readonly sandboxes: Sandboxes
  readonly routes: RouteDef[]
  /** The one matcher of the served routes: what answers a method and path, and whether the sandbox serves it (its mounts' paths too). */
  readonly matcher: Matcher
  /** The scenarios this app was given. */
  readonly scenarios: ScenarioRegistry
  readonly #openapi = new Map<string, Promise<Record<string, unknown>>>()
  #openapiFor = -1
  readonly #origins: ControlOrigins
  #bridge: Promise<Bridge> | undefined
  readonly #mounts: Map<string, Pipeline>
  readonly #stages: (x: Exchange) => Promise<Response>

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
    this.#stages = compose(options.stages)
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
      sandbox = await this.sandboxFor(meta, target)
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
  sandboxFor(meta: RequestMeta, target: Target): Promise<Sandbox> {
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
      doc = Promise.all([import('../control/openapi.js'), import('../control/scenario-list.js')]).then(
        ([{ openapiDocument }, { scenarioDocument }]) =>
          openapiDocument(this.routes, {
            strict: this.options.strict,
            ...scenarioDocument(this.scenarios.list()),
            issuer: issuer || undefined,
          }),
      )
      this.#openapi.set(issuer, doc)
    }
    return doc
  }

  release(sandbox: Sandbox): void {
    this.sandboxes.release(sandbox)
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
    const answer = this.#stages(
      new Exchange(this, request, target, meta, found.route, found.params ?? {}, found.allowed),
    )
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
      sandbox = await this.sandboxFor({}, target)
    } catch {
      return
    }
    try {
      const { path } = target
      const [read, responseBody] = await Promise.all([bodyOf(request), bodyOf(response)])
      // The route's secrets (a sign-in's password) stay out, as for the sandbox's own answers.
      const secret = this.matcher.match(request.method === 'HEAD' ? 'GET' : request.method, path).route?.secret
      const requestBody = scrubBody(read, secret)
      const headers: Record<string, string> = {}
      response.headers.forEach((v, k) => (headers[k] = v))
      sandbox.journal.add(
        {
          method: request.method,
          path,
          query: scrubQuery(target.search),
          status: response.status,
          faults: ['use'],
          durationMs: 0,
          at: sandbox.iso(),
        },
        {
          origin: target.origin + target.base,
          request: { headers: request.headers, body: requestBody },
          response: { headers: scrubHeaders(headers), body: scrubBody(responseBody) },
        },
      )
    } finally {
      this.sandboxes.release(sandbox)
    }
  }

  /** A request already matched to `route` (benchmarks and tests that skip matching). */
  handle(route: RouteDef, request: Request, params: Record<string, string>, meta: RequestMeta = {}): Promise<Response> {
    return this.#stages(new Exchange(this, request, meta.target ?? targetOf(request), meta, route, params, undefined))
  }

  /**
   * Scenarios in force for a request: the sandbox's plus those its header names (the header's
   * options win for a name in both), in the order of their `order`.
   */
  scenariosFor(sandbox: Sandbox, request: Request, route?: RouteDef): readonly Applied[] {
    let active: ActiveScenario[] = sandbox.inForce()
    const header = request.headers.get(SCENARIO_HEADER)
    const named = header !== null && header.trim() !== ''
    // Most requests run with none: no arrays made for them.
    if (!named && active.length === 0) return none
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

/** The matcher with the mounts' paths served too (in any method: the mount answers what it does not take). */
function withMounts(matcher: RouteMatcher, mounts: ReadonlyMap<string, unknown>): Matcher {
  if (!mounts.size) return matcher
  return {
    match: (method, path) => matcher.match(method, path),
    serves: (method, path) => mounts.has(path) || matcher.serves(method, path),
  }
}
