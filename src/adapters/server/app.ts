import { Hono } from 'hono'
import type { SandboxApp } from '../../core/app/app.js'
import type { RequestMeta } from '../../core/app/front-door.js'
import { nodeUpstreamFetch } from './upstream-fetch.js'
import { shownHeaders } from '../../core/http/shown-headers.js'

type Env = { Bindings: { incoming?: { socket?: { remoteAddress?: string }; rawHeaders?: string[] } } }

/** The sandbox as a Hono app, to mount in one of your own: every path goes to the front door. */
export function createHonoApp(app: SandboxApp): Hono<Env> {
  return new Hono<Env>().all('*', (c) => app.fetch(c.req.raw, incomingOf(c.env)).then((response) => cutIfAsked(response, c.env)))
}

/**
 * An override's `{error: "network"}` answers `Response.error()`: the socket ends with no answer,
 * so the caller sees a failed request (curl's "empty reply", a browser's failed fetch).
 */
export function cutIfAsked(response: Response, env: Env['Bindings'] | undefined): Response {
  if (response.type !== 'error') return response
  ;(env?.incoming?.socket as { destroy?: () => void } | undefined)?.destroy?.()
  return new Response(null, { status: 502 })
}

/** @hono/node-server hands node:http's request as `incoming`; the upstream is reached with node:http (upstream-fetch.ts). */
export const incomingOf = (env: Env['Bindings'] | undefined): RequestMeta => {
  const raw = env?.incoming?.rawHeaders
  return { clientAddress: env?.incoming?.socket?.remoteAddress, rawHeaders: raw && shownHeaders(raw), fetch: nodeUpstreamFetch }
}
