import type { Principal } from '../auth/types.js'
import type { TaxAuthorityHooks } from '../billing/authority.js'
import type { Bridge } from '../bridge/bridge.js'
import type { Reply } from '../http/reply.js'
import type { Target } from '../http/url.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { ScenarioFacts } from '../scenarios/types.js'
import type { RouteInfo, ServeOptions } from './types.js'

/*
 * What a request's handling hands out: the context a route's handler gets, and the scenario
 * whose hooks get it too. The two name each other, so they live together, above the sandbox;
 * what reads a route without running it takes RouteInfo (types.ts).
 */

export interface RouteContext<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  request: Request
  /** The request split once (http/url.ts): origin, base path, path, query, sandbox id. */
  readonly target: Target
  /** The request's URL (made when first read; `target` has its parts). */
  readonly url: URL
  /** The query string as sent, `?…` or ''. */
  search: string
  params: P
  query: Q
  body: B
  /** The parsed multipart form, for routes whose body is `multipart`. */
  form?: FormData
  sandbox: Sandbox
  route: RouteDef
  principal: Principal | undefined
  /** The caller's address when the runtime knows it (the page, in a browser). */
  clientAddress?: string
  /** The sandbox clock, in epoch ms. */
  now(): number
  /** The app answering: its served routes and OpenAPI document. */
  app: AppView
  /** Scenarios in force for this request (the sandbox's and the header's), in their order. */
  applied: readonly AppliedScenario[]
  /** False when a scenario hides the caller's records of `collection` (its `hides` hook); marks the answer. */
  visible(collection: string): boolean
  /** Marks the response as shaped by a scenario (`x-sandbox-fault`). */
  fault(name: string): void
}

export interface RouteDef<P = any, Q = any, B = any> extends RouteInfo<P, Q, B> {
  handler: (ctx: RouteContext<P, Q, B>) => Reply | Promise<Reply>
}

/** A route to run with its params, or else the methods its path allows (405) or none (404). */
export type Match =
  | { route: RouteDef; params: Record<string, string>; allowed?: undefined }
  | { route?: undefined; params?: undefined; allowed: string[] }

/**
 * What answers a method and path: the tuned `RouteMatcher` (a segment tree) and the plain
 * `PlainMatcher` (plain-matcher.ts, a scan of the table) answer the same, which
 * test/pipeline/matcher-reference.test.ts checks on generated paths.
 */
export interface Matcher {
  /** What answers `method path` (the URL's path, without the query). */
  match(method: string, path: string): Match
  /** Whether a route of the sandbox answers `method path`: runtimes that share an origin ask it. */
  serves(method: string, path: string): boolean
}

/** What a route sees of the app answering (a SandboxApp): its served routes, OpenAPI document, bridge and options. */
export interface AppView {
  readonly routes: readonly RouteDef[]
  readonly matcher: Matcher
  readonly options: ServeOptions
  openapi(issuer?: string): Promise<Record<string, unknown>>
  bridge(): Promise<Bridge> | undefined
  /** The app's front door: a request sent as any runtime sends one (a replay's steps). */
  fetch(request: Request, meta?: RequestMeta): Promise<Response>
}

/**
 * A scenario: one file in `scenarios/`. It may change state when it turns on (`activate`),
 * answer before the handler (`edge`: before auth, for gateways such as rate limits; `before`:
 * after auth and validation), or reshape the answer (`after`). The core offers two more hooks:
 * `hides` shapes data (which collections the caller sees), `taxAuthority` the DTE upload and
 * sync answers. The core never asks for a scenario by name.
 */
export interface ScenarioDefinition<O = any> extends ScenarioFacts<O> {
  activate?(sandbox: Sandbox, options: O): void
  edge?(ctx: RouteContext, options: O): Reply | undefined | Promise<Reply | undefined>
  before?(ctx: RouteContext, options: O): Reply | undefined | Promise<Reply | undefined>
  after?(ctx: RouteContext, reply: Reply, options: O): Reply | Promise<Reply>
  /**
   * Data shaping: true hides the caller's records of `collection` (a list answers empty, a count
   * zero), marking the answer with this scenario's name. Routes ask through `ctx.visible`.
   */
  hides?(collection: string, options: O): boolean
  /** How the simulated tax authority answers uploads and syncs of DTEs (src/core/billing/authority.ts). */
  taxAuthority?: TaxAuthorityHooks<O>
  /** The operations it can shape: the conduct's coverage lists it for them, met or not (docs/conduct.md). */
  appliesTo?(route: RouteInfo): boolean
  /**
   * The options that give again the answer a request met (a scenario that answers at random
   * pins it): what a Pact state of that request carries (src/core/contracts/pact.ts).
   */
  pinned?(options: O, status: number): O
}

/** A scenario in force for one request, with its options. */
export interface AppliedScenario {
  def: ScenarioDefinition
  options: Record<string, unknown>
}

/**
 * What a runtime tells `app.fetch` besides the Request. All optional: a runtime passes what
 * it has, and `via` says which door the request came through.
 */
export interface RequestMeta {
  /** Who is calling when there is no token: the client address, or the page in a browser. */
  clientAddress?: string
  /**
   * The request's headers as received, name/value pairs (node:http's `rawHeaders`): the journal
   * keeps them as they are instead of copying a Headers object on every request.
   */
  rawHeaders?: readonly string[]
  /**
   * The request split once (http/url.ts), when the runtime already split it: MSW's handlers (the
   * place's base path read off), the Durable Object (the sandbox id a batch carried), the MCP
   * server's tool calls (made from their parts). Otherwise the front door splits it.
   */
  target?: Target
  /**
   * How this runtime reaches the upstream (msw's runtimes mark the request so they let it pass):
   * a `Response`, or its head alone when no Response can carry the status (an interim 1xx over
   * node:http), which the bridge refuses naming it.
   */
  fetch?: (request: Request) => Promise<Pick<Response, 'status' | 'statusText' | 'headers' | 'body'>>
  /**
   * `http` (the default): a socket's request, so the front door answers preflights, adds CORS
   * headers and drains an unread body. `msw`: a request MSW intercepted in a page or a process,
   * which has no preflight and no connection to keep.
   */
  via?: 'http' | 'msw'
  /** What the journal entry of this request carries besides its own fields: the MCP server's `via` and `tool` (src/mcp/server.ts). */
  marks?: { via: 'mcp'; tool: string }
  /** The sandbox to answer in, given outright (a replay builds its world apart: src/core/time-travel/replay.ts). */
  sandbox?: Sandbox
}
