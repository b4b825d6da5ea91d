import type { z } from 'zod'
import type { Permission } from '../auth/permissions.js'
import type { Principal } from '../auth/principal.js'
import type { ErrorShape, Reply } from '../http/reply.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { AppliedScenario } from '../scenarios/define.js'
import type { SandboxApp } from './app.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * Who may call a route. `user` is the backoffice surface (session, `atk_` token or agent JWT);
 * `portal` is the client portal's own token; `control` is the `/__sandbox` API.
 */
export type AuthRule =
  | { kind: 'public' }
  | { kind: 'user'; permission?: Permission; anyToken?: boolean }
  | { kind: 'portal'; role: 'invoices' | 'support' }
  | { kind: 'control'; /** A page a browser navigates to (no headers): it holds no state and asks for the token itself. */ page?: boolean }

export interface RouteContext<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  request: Request
  /** The request's URL (made when first read). */
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
  app: Pick<SandboxApp, 'routes' | 'openapi' | 'bridge' | 'options' | 'matcher'>
  /** Scenarios in force for this request (the sandbox's and the header's), in their order. */
  applied: readonly AppliedScenario[]
  /** False when a scenario hides the caller's records of `collection` (its `hides` hook); marks the answer. */
  visible(collection: string): boolean
  /** Marks the response as shaped by a scenario (`x-sandbox-fault`). */
  fault(name: string): void
}

export interface RouteDef<P = any, Q = any, B = any> {
  /** OpenAPI operationId, unique in the table. */
  id: string
  method: Method
  /** Hono/MSW syntax: `/api/layers/:id`. */
  path: string
  summary: string
  tag: string
  auth: AuthRule
  /** Not documented by the spec: marked `x-sandbox-assumed` and absent with `--strict`. */
  assumed?: boolean
  /** Error body shape the spec shows for this route (default `standard`). */
  errorShape?: ErrorShape
  params?: z.ZodType<P>
  query?: z.ZodType<Q>
  /** `snapshot`: JSON of up to 256 MB, checked by the handler (`PUT /__sandbox/snapshot`). */
  body?: z.ZodType<B> | 'multipart' | 'snapshot'
  /** Success status and body schema, for the OpenAPI document. */
  response?: { status?: number; schema?: z.ZodType; description?: string; /** Default application/json. */ mediaType?: string }
  /** Other statuses this route answers, for the OpenAPI document. */
  errors?: Record<number, string>
  /** Body fields the journal never keeps (a password): their values are journaled as `[not kept]`. */
  secret?: readonly string[]
  /** A control route journaled whatever it changed (the rewind); others are when they change the world. */
  journaled?: boolean
  /**
   * `false`: a repro bundle does not replay this request; what it changed is carried as the value
   * of the parts it changed (OAuth's endpoints: their client ids, codes and tokens are random).
   */
  replayed?: false
  /** Answer headers the journal keeps as `[not kept]` (a redirect carrying an authorization code). */
  secretHeaders?: readonly string[]
  /** Creation, publication, emission, payment, e-mail, messaging or upload (retry guidance rule 3). */
  effect?: boolean
  /**
   * A GET that answers a list of this collection's records (`notifications`, a name of
   * `tableSchemas`): the drift walk takes ids from it and the recorder maps its records.
   */
  lists?: string
  /** A GET whose path parameter is the id of a record of this collection: the walk takes it from that collection's list. */
  idOf?: string
  handler: (ctx: RouteContext<P, Q, B>) => Reply | Promise<Reply>
}

/** Keeps the handler's context typed by the route's schemas. */
export function defineRoute<P = Record<string, string>, Q = Record<string, unknown>, B = undefined>(def: RouteDef<P, Q, B>): RouteDef<P, Q, B> {
  return def
}

/** What a sandbox serves: `--strict` drops assumed routes, `--no-control` the control API. */
export function servedRoutes(routes: readonly RouteDef[], options: { strict?: boolean; control?: unknown }): RouteDef[] {
  return routes.filter((r) => !(options.strict && r.assumed) && !(options.control === false && r.auth.kind === 'control'))
}
