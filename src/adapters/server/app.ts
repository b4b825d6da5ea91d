import { Hono } from 'hono'
import { type SandboxApp, errorReply, unmatched } from '../../core/app/app.js'
import { toResponse } from '../../core/http/reply.js'

type Env = { Bindings: { incoming?: { socket?: { remoteAddress?: string }; rawHeaders?: string[] } } }

export const corsAllowHeaders = ['authorization', 'content-type', 'x-sandbox-id', 'x-sandbox-scenario', 'x-sandbox-control-token']
export const corsExposeHeaders = ['set-auth-token', 'retry-after', 'x-sandbox-fault', 'x-sandbox-assumed', 'allow']
const corsAllowMethods = 'GET,POST,PUT,PATCH,DELETE,OPTIONS'
const exposed = corsExposeHeaders.join(',')
const PREFLIGHT_MAX_AGE = '600'

export interface CorsOptions {
  /** Origins besides loopback ones whose pages may call `/__sandbox` (`--cors-origin`). */
  corsOrigins?: readonly string[]
}

const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/
const CONTROL_PATH = /^\/__sandbox(\/|$)/

/**
 * The origin to echo, or none. `/api/...` answers any page; the control API (snapshots with
 * passwords, reset) only pages on loopback and those named with `--cors-origin`, so a web page
 * elsewhere cannot read or drive it from a developer's browser.
 */
function allowedOrigin(request: Request, options: CorsOptions, control = CONTROL_PATH.test(new URL(request.url).pathname)): string | undefined {
  const origin = request.headers.get('origin')
  if (!control) return origin || '*'
  if (origin && (LOOPBACK_ORIGIN.test(origin) || options.corsOrigins?.includes(origin))) return origin
  return undefined
}

/**
 * The CORS headers of an answer, which the pipeline adds to its own Response. Hono's cors
 * middleware would wrap it in a new one, which makes @hono/node-server read every body back
 * through a web stream (a third of the server's time on the notifications list, BENCHMARKS.md).
 */
function corsHeaders(request: Request, options: CorsOptions, control?: boolean): Record<string, string> {
  const origin = allowedOrigin(request, options, control)
  if (!origin) return { vary: 'Origin' }
  return { vary: 'Origin', 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': exposed }
}

/** CORS on an answer made outside the pipeline (404, 405, an error in Hono itself). */
function withCors(request: Request, response: Response, options: CorsOptions): Response {
  const cors = corsHeaders(request, options)
  for (const name in cors) response.headers[name === 'vary' ? 'append' : 'set'](name, cors[name])
  return response
}

/** Every OPTIONS request is a preflight: 204 with what the browser may send. */
function preflight(request: Request, options: CorsOptions): Response {
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

/** The Hono app: Hono's router dispatches straight to the shared pipeline, one route per table entry. */
export function createHonoApp(app: SandboxApp, cors: CorsOptions = {}): Hono<Env> {
  const hono = new Hono<Env>()
  hono.options('*', (c) => preflight(c.req.raw, cors))
  const methodsByPath = new Map<string, string[]>()
  for (const route of app.routes) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method])
    const control = CONTROL_PATH.test(route.path)
    hono.on(route.method, route.path, (c) => {
      const incoming = c.env?.incoming
      const meta = { clientAddress: incoming?.socket?.remoteAddress, rawHeaders: incoming?.rawHeaders, headers: corsHeaders(c.req.raw, cors, control) }
      if (app.options.upstream && app.passesThrough(c.req.path, route, [])) return app.passthrough(c.req.raw, meta, route)
      return app.handle(route, c.req.raw, c.req.param() as Record<string, string>, meta)
    })
  }
  for (const [path, methods] of methodsByPath) hono.all(path, (c) => withCors(c.req.raw, unmatched(c.req.raw, methods), cors))
  hono.notFound((c) => {
    if (app.passesThrough(c.req.path, undefined, [])) return app.passthrough(c.req.raw, { headers: corsHeaders(c.req.raw, cors, false) })
    return withCors(c.req.raw, unmatched(c.req.raw, []), cors)
  })
  hono.onError((error, c) => withCors(c.req.raw, toResponse(errorReply(undefined, error)), cors))
  return hono
}
