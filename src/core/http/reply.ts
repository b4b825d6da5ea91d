import { type ErrorShape, errorBody } from './status.js'

/**
 * Marks an HttpError. The command line bundles its own copy of this class while a scenario file
 * imports the package's, so `instanceof` asks for the mark, shared through the global symbol
 * registry, never for class identity: one HttpError however the package is loaded.
 */
const HTTP_ERROR: unique symbol = Symbol.for('fleet-sandbox.HttpError')

/** Errors are values with a status and a message that names the field and the rule. */
export class HttpError extends Error {
  readonly [HTTP_ERROR] = true

  static override [Symbol.hasInstance](value: unknown): value is HttpError {
    try {
      return typeof value === 'object' && value !== null && (value as { [HTTP_ERROR]?: unknown })[HTTP_ERROR] === true
    } catch {
      // A hook may throw anything, a Proxy whose reads throw too: that is no HttpError (a 500).
      return false
    }
  }

  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new HttpError(400, message)
export const unauthorized = (message: string) => new HttpError(401, message)
export const forbidden = (message: string) => new HttpError(403, message)
export const notFound = (message: string) => new HttpError(404, message)
export const conflict = (message: string) => new HttpError(409, message)
export const unprocessable = (message: string) => new HttpError(422, message)

/** A handler's answer before it becomes a Response in whichever runtime serves it. */
export interface Reply {
  status: number
  body: unknown
  headers?: Record<string, string>
  /** Set on error replies, so scenarios can reshape the body. */
  error?: HttpError
  /** An override's answer (docs/your-own-answers.md): final, no scenario reshapes it; `label` names it in `x-sandbox-fault`. */
  override?: { id: string; label: string }
  /** The override cuts the connection: no answer at all (a browser sees a failed fetch). */
  cut?: boolean
}

/** A body that is already JSON text: lets hot list routes reuse cached record JSON. */
export class RawJson {
  constructor(
    /** JSON text, or its UTF-8 bytes when the route keeps them encoded. */
    readonly text: string | Uint8Array,
    /** What the journal keeps instead of the text, when the route can write it again (a list page). */
    readonly kept?: BodySource,
  ) {}
}

/**
 * A body written again when asked: the journal keeps this instead of the bytes sent. A kept
 * page outlived the young generation and was most of the server's old-generation garbage
 * (profile: `node bench/profile.mjs`; docs/benchmarks-history.md).
 */
export interface BodySource {
  /** Bytes of the body as sent. */
  readonly size: number
  bytes(): Uint8Array
}

/** A body sent as is with its own content type: the control panel page. */
export class RawBody {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}

export const reply = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body,
  headers,
})
export const ok = (body: unknown, headers?: Record<string, string>): Reply => reply(200, body, headers)
export const success = (data: unknown): Reply => ok({ status: 'success', data })

// Apart in status.ts: the lazily loaded HAR writer and passthrough need them, not the rest of this file.
export { type ErrorShape, errorBody, reasonPhrase } from './status.js'

/**
 * The reply as a Response. Headers go in as a plain record of lower-case names: @hono/node-server
 * writes such a record straight to the socket, where a Headers object costs a copy and a sort
 * per request (a visible share of a list request: `node bench/profile.mjs`). `extra` are the runtime's own (CORS).
 */
export function toResponse(r: Reply, extra?: Record<string, string>, headers = responseHeaders(r, extra)): Response {
  return new Response(r.body === undefined || r.body === null ? null : bodyOf(r.body), { status: r.status, headers })
}

/**
 * The JSON body an answer was made of, for a caller inside the process that reads it at once:
 * a tool call of the MCP server takes its request's answer from here instead of reading the
 * Response back through a web stream (`npm run bench -- --only mcp`). Kept only for requests
 * that ask (`meta.marks`); `response.text()` is the same text (test/mcp/tuned.test.ts).
 */
const sent = new WeakMap<Response, string | Uint8Array>()
export const sentBody = (response: Response): string | Uint8Array | undefined => sent.get(response)
export const keepSent = (response: Response, body: unknown): void =>
  void (body instanceof RawJson && sent.set(response, body.text))

/** What the answer to `r` carries, names in lower case: the reply's, the content type, then `extra`. */
export function responseHeaders(r: Reply, extra?: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name in r.headers) headers[name.toLowerCase()] = r.headers[name]
  // A stream (the event stream) carries its own content type.
  if (r.body instanceof RawBody) headers['content-type'] = r.body.contentType
  else if (r.body !== undefined && r.body !== null && !(r.body instanceof ReadableStream))
    headers['content-type'] = 'application/json; charset=utf-8'
  for (const name in extra)
    headers[name] = name === 'vary' && headers.vary ? `${headers.vary}, ${extra.vary}` : extra[name]
  return headers
}

function bodyOf(body: unknown): BodyInit {
  if (body instanceof ReadableStream) return body
  if (body instanceof RawBody) return body.text
  return (body instanceof RawJson ? body.text : JSON.stringify(body)) as BodyInit
}

/** The reply to an error thrown while answering: its own status and message, or a 500 (logged). */
export function errorReply(route: { errorShape?: ErrorShape } | undefined, error: unknown): Reply {
  const e =
    error instanceof HttpError ? error : new HttpError(500, 'internal error: the sandbox failed to handle this request')
  if (!(error instanceof HttpError)) console.error(error)
  return {
    status: e.status,
    body: errorBody(route?.errorShape ?? 'standard', e.status, e.message),
    headers: e.headers,
    error: e,
  }
}
