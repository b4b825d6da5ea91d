import type { ControlOrigins } from '../control/origin.js'
import type { Reply } from '../http/reply.js'
import type { Target } from '../http/url.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { Changes } from '../store/changes.js'
import type { AppView, AppliedScenario, RequestMeta, RouteContext, RouteDef } from './context.js'

export const SCENARIO_HEADER = 'x-sandbox-scenario'
export const FAULT_HEADER = 'x-sandbox-fault'

/** What the pipeline carries besides a runtime's meta: the headers the front door adds to every answer (CORS). */
export type Served = RequestMeta & { headers?: Record<string, string> }

/** What the stages read of the app answering, besides what a route sees of it. */
export interface StageApp extends AppView {
  readonly origins: ControlOrigins
  /** The sandbox a request selects, held until `release`. */
  sandboxFor(meta: RequestMeta, target: Target): Promise<Sandbox>
  release(sandbox: Sandbox): void
  scenariosFor(sandbox: Sandbox, request: Request, route?: RouteDef): readonly AppliedScenario[]
}

/** What a stage gives back: an answer ends the stages before the tail; a promise only when it had to wait. */
export type Step = Reply | undefined | void | Promise<Reply | undefined | void>

/**
 * One step of the request pipeline, as a hono middleware is one, without a `next` to call (no
 * closure per request): `answer` runs before the route's answer exists and may give it (the
 * first answer ends that part); `tail` runs after, every one in order, and may replace
 * `x.reply` (the journal stage turns it into `x.response`). The list is assembled in
 * src/apps/stages.ts; `compose` (compose.ts) runs it.
 */
export type Stage =
  | { readonly name: string; readonly answer: (x: Exchange) => Step; readonly tail?: undefined }
  | { readonly name: string; readonly tail: (x: Exchange) => void | Promise<void>; readonly answer?: undefined }

const none: readonly AppliedScenario[] = []

/**
 * One request on its way through the stages, and the context its route and scenarios see. A
 * class, so every exchange has one shape: an object literal with a getter made a new hidden
 * class per request (slower, and far more RSS: `npm run bench -- --only memory`). Its functions
 * are bound, so a scenario may pass them around.
 */
export class Exchange implements RouteContext {
  /** Set by the door stage; what no later stage runs without. */
  sandbox!: Sandbox
  /** The matched route; the door answers 404 or 405 when there is none, so no stage after it reads it unset. */
  readonly route: RouteDef
  query: RouteContext['query'] = {}
  body: unknown = undefined
  form?: FormData = undefined
  principal: RouteContext['principal'] = undefined
  applied: readonly AppliedScenario[] = none
  /** The instant a write ran at (the clock is held for it). */
  at: number | undefined = undefined
  /** What a write changed, taken before the next write may start. */
  changes: Changes | undefined = undefined
  /** The answer, once a stage gave one. */
  reply!: Reply
  /** What goes back to the runtime: set by the journal stage. */
  response: Response | undefined = undefined
  durationMs = 0
  /** The conduct rules the request broke (src/core/conduct/stage.ts), for its journal entry. */
  conduct: string[] | undefined = undefined
  readonly faults: string[] = []
  readonly started = performance.now()
  readonly search: string
  readonly clientAddress: string | undefined
  #url: URL | undefined = undefined

  constructor(
    readonly app: StageApp,
    readonly request: Request,
    readonly target: Target,
    readonly meta: Served,
    /** The route the matcher found, or none (read by the door and the tail). */
    readonly matched: RouteDef | undefined,
    public params: Record<string, string>,
    /** The methods the path allows when no route matched (405), or none (404). */
    readonly allowed: readonly string[] | undefined,
  ) {
    this.route = matched as RouteDef
    this.search = target.search
    this.clientAddress = meta.clientAddress
  }

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
