/** Errors are values with a status and a message that names the field and the rule. */
export class HttpError extends Error {
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
}

/** A body that is already JSON text: lets hot list routes reuse cached record JSON. */
export class RawJson {
  /** JSON text, or its UTF-8 bytes when the route keeps them encoded. */
  constructor(readonly text: string | Uint8Array) {}
}

/** A body sent as is with its own content type: the control panel page. */
export class RawBody {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}

export const reply = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({ status, body, headers })
export const ok = (body: unknown, headers?: Record<string, string>): Reply => reply(200, body, headers)
export const success = (data: unknown): Reply => ok({ status: 'success', data })

/** The three error body shapes the spec says clients meet. */
export type ErrorShape = 'standard' | 'error' | 'message'

const reasons: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

export const reasonPhrase = (status: number) => reasons[status] ?? 'Error'

/**
 * Routes documented with `{error}` bodies answer 500 as `{message}` (the spec's table);
 * everything else uses `{statusCode, message, error}`.
 */
export function errorBody(shape: ErrorShape, status: number, message: string): unknown {
  if (shape === 'message' || (shape === 'error' && status >= 500)) return { message }
  if (shape === 'error') return { error: message }
  return { statusCode: status, message, error: reasonPhrase(status) }
}

export function toResponse(r: Reply): Response {
  const headers = new Headers(r.headers)
  if (r.body === undefined || r.body === null) return new Response(null, { status: r.status, headers })
  // A stream (the event stream) carries its own content type.
  if (r.body instanceof ReadableStream) return new Response(r.body, { status: r.status, headers })
  if (r.body instanceof RawBody) {
    headers.set('content-type', r.body.contentType)
    return new Response(r.body.text, { status: r.status, headers })
  }
  headers.set('content-type', 'application/json; charset=utf-8')
  const body = r.body instanceof RawJson ? r.body.text : JSON.stringify(r.body)
  return new Response(body as BodyInit, { status: r.status, headers })
}
