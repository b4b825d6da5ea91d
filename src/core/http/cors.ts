import { type RequestMeta, type SandboxApp, errorReply } from '../app/app.js'
import { controlPath } from '../app/matcher.js'
import { toResponse } from './reply.js'
import { type ControlOrigins, controlOriginAllowed } from '../control/origin.js'
import { splitUrl } from './url.js'

/** What a runtime tells about a request besides the Request: the caller's address, the headers as received. */
export type Incoming = Pick<RequestMeta, 'clientAddress' | 'rawHeaders' | 'sandboxId'>

export const corsAllowHeaders = ['authorization', 'content-type', 'x-sandbox-id', 'x-sandbox-scenario', 'x-sandbox-control-token']
export const corsExposeHeaders = ['set-auth-token', 'retry-after', 'x-sandbox-fault', 'x-sandbox-assumed', 'allow']
const corsAllowMethods = 'GET,POST,PUT,PATCH,DELETE,OPTIONS'
const exposed = corsExposeHeaders.join(',')
const PREFLIGHT_MAX_AGE = '600'

export interface CorsOptions {
  /** Origins besides loopback ones whose pages may call `/__sandbox` (`--cors-origin`). */
  corsOrigins?: readonly string[]
}

/**
 * The origin to echo, or none. `/api/...` answers any page; the control API (snapshots with
 * passwords, reset) only pages on loopback and those named with `--cors-origin`, so a web page
 * elsewhere cannot read or drive it from a developer's browser.
 */
function allowedOrigin(request: Request, options: ControlOrigins, control = controlPath(splitUrl(request.url).path)): string | undefined {
  const origin = request.headers.get('origin')
  if (!control) return origin || '*'
  // The same rule the core's guard refuses others by (403).
  if (origin && controlOriginAllowed(origin, options, new URL(request.url).origin)) return origin
  return undefined
}

/**
 * The CORS headers of an answer, which the pipeline adds to its own Response. Hono's cors
 * middleware would wrap it in a new one, which makes @hono/node-server read every body back
 * through a web stream (a third of the server's time on the notifications list, BENCHMARKS.md).
 */
function corsHeaders(request: Request, options: ControlOrigins): Record<string, string> {
  const origin = allowedOrigin(request, options)
  if (!origin) return { vary: 'Origin' }
  return { vary: 'Origin', 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': exposed }
}

/** Every OPTIONS request is a preflight: 204 with what the browser may send. */
function preflight(request: Request, options: ControlOrigins): Response {
  const origin = allowedOrigin(request, options)
  if (!origin) return new Response(null, { status: 204, headers: { vary: 'Origin' } })
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': exposed,
      'access-control-max-age': PREFLIGHT_MAX_AGE,
      'access-control-allow-methods': corsAllowMethods,
      'access-control-allow-headers': corsAllowHeaders.join(','),
      vary: 'Origin, Access-Control-Request-Headers',
    },
  })
}

/**
 * The HTTP front door of the Node server and the Durable Object: a preflight, or the app's
 * `fetch` with the CORS headers of the answer.
 */
export function httpFetch(app: SandboxApp, options: CorsOptions = {}): (request: Request, incoming?: Incoming) => Promise<Response> {
  // The core's rule (control/origin.ts): what it echoes, the pipeline serves; the rest it refuses.
  const cors: ControlOrigins = { corsOrigins: options.corsOrigins ?? app.options.corsOrigins, token: (app.options.control || undefined)?.token }
  return async (request, incoming) => {
    if (request.method === 'OPTIONS') return preflight(request, cors)
    try {
      return await app.fetch(request, { ...incoming, headers: corsHeaders(request, cors) })
    } catch (error) {
      return toResponse(errorReply(undefined, error), corsHeaders(request, cors))
    }
  }
}
