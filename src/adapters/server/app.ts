import { Hono } from 'hono'
import { type SandboxApp, errorReply, unmatched } from '../../core/app/app.js'
import { toResponse } from '../../core/http/reply.js'

type Env = { Bindings: { incoming?: { socket?: { remoteAddress?: string } } } }

export const corsAllowHeaders = ['authorization', 'content-type', 'x-sandbox-id', 'x-sandbox-scenario', 'x-sandbox-control-token']
export const corsExposeHeaders = ['set-auth-token', 'retry-after', 'x-sandbox-fault', 'x-sandbox-assumed', 'allow']
const corsAllowMethods = 'GET,POST,PUT,PATCH,DELETE,OPTIONS'
const exposed = corsExposeHeaders.join(',')
const PREFLIGHT_MAX_AGE = '600'

/**
 * CORS headers set on the pipeline's own Response. Hono's cors middleware would wrap it in a
 * new one, which makes @hono/node-server read every body back through a web stream (a third
 * of the server's time on the notifications list, bench/ and BENCHMARKS.md).
 */
function withCors(request: Request, response: Response): Response {
  const headers = response.headers
  headers.set('access-control-allow-origin', request.headers.get('origin') || '*')
  headers.set('access-control-allow-credentials', 'true')
  headers.set('access-control-expose-headers', exposed)
  headers.append('vary', 'Origin')
  return response
}

/** Every OPTIONS request is a preflight: 204 with what the browser may send. */
function preflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': request.headers.get('origin') || '*',
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
export function createHonoApp(app: SandboxApp): Hono<Env> {
  const hono = new Hono<Env>()
  hono.options('*', (c) => preflight(c.req.raw))
  const methodsByPath = new Map<string, string[]>()
  for (const route of app.routes) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method])
    hono.on(route.method, route.path, async (c) => {
      const meta = { clientAddress: c.env?.incoming?.socket?.remoteAddress }
      return withCors(c.req.raw, await app.handle(route, c.req.raw, c.req.param() as Record<string, string>, meta))
    })
  }
  for (const [path, methods] of methodsByPath) hono.all(path, (c) => withCors(c.req.raw, unmatched(c.req.raw, methods)))
  hono.notFound((c) => withCors(c.req.raw, unmatched(c.req.raw, [])))
  hono.onError((error, c) => withCors(c.req.raw, toResponse(errorReply(undefined, error))))
  return hono
}
