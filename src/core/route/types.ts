import type { z } from 'zod'
import type { Permission } from '../auth/permissions.js'
import type { ErrorShape } from '../http/reply.js'
import type { UpstreamOptions } from '../bridge/upstream.js'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * Who may call a route. `user` is the backoffice surface (session, `atk_` token or agent JWT);
 * `portal` is the client portal's own token; `control` is the `/__sandbox` API.
 */
export type AuthRule =
  | { kind: 'public' }
  | { kind: 'user'; permission?: Permission; anyToken?: boolean }
  | { kind: 'portal'; role: 'invoices' | 'support' }
  | {
      kind: 'control'
      /** A page a browser navigates to (no headers): it holds no state and asks for the token itself. */ page?: boolean
    }

/**
 * A route as the table describes it: everything but its handler. What reads a route without
 * running it (the matcher, the OpenAPI writer, the bridge, overrides, the repro log) takes this.
 */
export interface RouteInfo<P = any, Q = any, B = any> {
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
  /**
   * What a handler that reads its own request takes (OAuth's endpoints, whose refusals have RFC
   * 6749's codes): stated in the document like `query` and `body`, not checked by the pipeline.
   */
  reads?: {
    query?: z.ZodType
    /** An `application/x-www-form-urlencoded` body. */
    form?: z.ZodType
    json?: z.ZodType
  }
  /** Success status and body schema, for the OpenAPI document. */
  response?: {
    status?: number
    schema?: z.ZodType
    description?: string
    /** Default application/json. */ mediaType?: string
  }
  /** Error statuses answered with an HTML page (OAuth's sign-in page again, or its error page to a browser). */
  htmlErrors?: readonly number[]
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
  /**
   * A sign-in: the token it answers opens the routes of this auth kind. `token` is an OpenAPI
   * runtime expression of it (`$response.header.set-auth-token`): the document links the two.
   */
  signsIn?: { kind: 'user' | 'portal'; token: string }
  /** The operation whose success answer is this route's body, as it came (a snapshot, a repro bundle): the document links them. */
  bodyFrom?: string
}

/** How an app serves its routes, besides what its sandboxes are (SandboxAppOptions adds those): what a route may read of them. */
export interface ServeOptions {
  /** Serve only what the spec documents: assumed routes answer 404. */
  strict?: boolean
  /** Control API: open, guarded by a token (`x-sandbox-control-token`), or off. */
  control?: { token?: string } | false
  /** Log one line per request. */
  log?: (line: string) => void
  /** Origins besides loopback ones whose pages may use `/__sandbox` (`--cors-origin`). */
  corsOrigins?: readonly string[]
  /** The page the browser worker serves: its own origin may use `/__sandbox`. */
  pageOrigin?: string
  /** The real backend: unmatched `/api/...` requests go there, and answers are checked (docs/bridge.md). */
  upstream?: UpstreamOptions
}
