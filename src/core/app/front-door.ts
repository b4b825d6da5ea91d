import { controlPath } from '../route/matcher.js'
import type { RequestMeta } from '../route/context.js'
import { errorReply, toResponse } from '../http/reply.js'
import { afterBody } from '../http/drain.js'
import { type ControlOrigins, controlOriginAllowed } from '../control/origin.js'
import { type Target, type UrlParts, targetOf } from '../http/url.js'

export type { RequestMeta }

/** Behind the door: the app's pipeline, given the request split once and the headers every answer carries. */
export type Pipeline = (
  request: Request,
  meta: RequestMeta,
  target: Target,
  extra: Record<string, string> | undefined,
) => Promise<Response>

export const corsAllowHeaders = [
  'authorization',
  'content-type',
  'x-sandbox-id',
  'x-sandbox-scenario',
  'x-sandbox-control-token',
]
export const corsExposeHeaders = ['set-auth-token', 'retry-after', 'x-sandbox-fault', 'x-sandbox-assumed', 'allow']
const corsAllowMethods = 'GET,POST,PUT,PATCH,DELETE,OPTIONS'
const exposed = corsExposeHeaders.join(',')
const PREFLIGHT_MAX_AGE = '600'

/**
 * The one front door every runtime calls as `app.fetch(request, meta)`: the Node server, the
 * Hono mount, the Durable Object (`via: 'http'`), and the MSW handler (`via: 'msw'`). Over
 * HTTP it answers a preflight, adds CORS headers to the answer and reads what the pipeline
 * left of the body before the answer leaves (drain.ts), so a kept-alive connection stays usable.
 */
export function frontDoor(
  origins: ControlOrigins,
  pipeline: Pipeline,
): (request: Request, meta: RequestMeta) => Promise<Response> {
  return async (request, meta) => {
    const url = meta.target ?? targetOf(request)
    if (meta.via === 'msw') return pipeline(request, meta, url, undefined)
    const control = controlPath(url.path)
    if (request.method === 'OPTIONS') return preflight(request, origins, url, control)
    const cors = corsHeaders(request, origins, url, control)
    let answer: Promise<Response>
    try {
      answer = pipeline(request, meta, url, cors).catch((error) => toResponse(errorReply(undefined, error), cors))
    } catch (error) {
      answer = Promise.resolve(toResponse(errorReply(undefined, error), cors))
    }
    // An early answer waits for the body it left unread: @hono/node-server's own drain stalls
    // behind the web stream a partial read leaves on the socket, and workerd closes the
    // connection without telling the client.
    return request.method === 'GET' || request.method === 'HEAD' ? answer : afterBody(request, answer)
  }
}

/**
 * The origin to echo, or none. `/api/...` answers any page; the control API (snapshots with
 * passwords, reset) only pages on loopback and those named with `--cors-origin`, so a web page
 * elsewhere cannot read or drive it from a developer's browser.
 */
function allowedOrigin(request: Request, origins: ControlOrigins, url: UrlParts, control: boolean): string | undefined {
  const origin = request.headers.get('origin')
  if (!control) return origin || '*'
  // The same rule the core's guard refuses others by (403).
  if (origin && controlOriginAllowed(origin, origins, url.origin)) return origin
  return undefined
}

/**
 * The CORS headers of an answer, which the pipeline adds to its own Response. Hono's cors
 * middleware would wrap it in a new one, which makes @hono/node-server read every body back
 * through a web stream (the notifications list in the bench's varied load).
 */
function corsHeaders(
  request: Request,
  origins: ControlOrigins,
  url: UrlParts,
  control: boolean,
): Record<string, string> {
  const origin = allowedOrigin(request, origins, url, control)
  if (!origin) return { vary: 'Origin' }
  return {
    vary: 'Origin',
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': exposed,
  }
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/
const REQUESTED_MAX = 50

/**
 * The headers a page may send: ours, and those its preflight asks for (`traceparent`,
 * `x-request-id`, ...), each a valid header name, at most 50; anything else is left out, so the
 * browser refuses the request and says which header.
 */
export function allowHeaders(requested: string | null): string {
  if (!requested) return corsAllowHeaders.join(',')
  const names = new Set(corsAllowHeaders)
  for (const raw of requested.split(',', REQUESTED_MAX + 1).slice(0, REQUESTED_MAX)) {
    const name = raw.trim().toLowerCase()
    if (TOKEN.test(name)) names.add(name)
  }
  return [...names].join(',')
}

/** Every OPTIONS request over HTTP is a preflight: 204 with what the browser may send. */
function preflight(request: Request, origins: ControlOrigins, url: UrlParts, control: boolean): Response {
  const origin = allowedOrigin(request, origins, url, control)
  if (!origin) return new Response(null, { status: 204, headers: { vary: 'Origin' } })
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': exposed,
      'access-control-max-age': PREFLIGHT_MAX_AGE,
      'access-control-allow-methods': corsAllowMethods,
      'access-control-allow-headers': allowHeaders(request.headers.get('access-control-request-headers')),
      vary: 'Origin, Access-Control-Request-Headers',
    },
  })
}
