import { Hono } from 'hono'
import { cors } from 'hono/cors'
import { type SandboxApp, errorReply, unmatched } from '../core/app.js'
import { toResponse } from '../core/http.js'

type Env = { Bindings: { incoming?: { socket?: { remoteAddress?: string } } } }

export const corsAllowHeaders = ['authorization', 'content-type', 'x-sandbox-id', 'x-sandbox-scenario', 'x-sandbox-control-token']
export const corsExposeHeaders = ['set-auth-token', 'retry-after', 'x-sandbox-fault', 'x-sandbox-assumed', 'allow']

/** The Hono app: Hono's router dispatches straight to the shared pipeline, one route per table entry. */
export function createHonoApp(app: SandboxApp): Hono<Env> {
  const hono = new Hono<Env>()
  hono.use('*', cors({
    origin: (origin) => origin || '*',
    credentials: true,
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowHeaders: corsAllowHeaders,
    exposeHeaders: corsExposeHeaders,
    maxAge: 600,
  }))
  const methodsByPath = new Map<string, string[]>()
  for (const route of app.routes) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method])
    hono.on(route.method, route.path, (c) => app.handle(route, c.req.raw, c.req.param() as Record<string, string>, { clientAddress: c.env?.incoming?.socket?.remoteAddress }))
  }
  for (const [path, methods] of methodsByPath) hono.all(path, (c) => unmatched(c.req.raw, methods))
  hono.notFound((c) => unmatched(c.req.raw, []))
  hono.onError((error) => toResponse(errorReply(undefined, error)))
  return hono
}
