import { Hono } from 'hono'
import type { SandboxApp } from '../../core/app/app.js'
import type { RequestMeta } from '../../core/app/front-door.js'
import { nodeUpstreamFetch } from './upstream-fetch.js'
import { shownHeaders } from '../../core/http/shown-headers.js'

type Env = { Bindings: { incoming?: { socket?: { remoteAddress?: string }; rawHeaders?: string[] } } }

/** The sandbox as a Hono app, to mount in one of your own: every path goes to the front door. */
export function createHonoApp(app: SandboxApp): Hono<Env> {
  const answer = nodeFetch(app)
  return new Hono<Env>().all('*', (c) => answer(c.req.raw, c.env))
}

/** What @hono/node-server is handed: the app's answer, the socket cut when an override asks for it. */
export function nodeFetch(app: SandboxApp): (request: Request, env: Env['Bindings'] | undefined) => Promise<Response> {
  return (request, env) => app.fetch(request, incomingOf(env)).then((response) => cutIfAsked(response, env))
}

/**
 * An override's `{error: "network"}` answers `Response.error()`: the socket ends with no answer,
 * so the caller sees a failed request (curl's "empty reply", a browser's failed fetch).
 */
export function cutIfAsked(response: Response, env: Env['Bindings'] | undefined): Response {
  // `status`, never `type`: only `Response.error()` has status 0, and reading `type` (or `body`,
  // `clone`) on @hono/node-server's light Response builds the full one, which takes the server off
  // its cached one-write path (test/http/light-response.test.ts; `npm run bench -- --only varied`).
  if (response.status !== 0) return response
  ;(env?.incoming?.socket as { destroy?: () => void } | undefined)?.destroy?.()
  return new Response(null, { status: 502 })
}

/** @hono/node-server hands node:http's request as `incoming`; the upstream is reached with node:http (upstream-fetch.ts). */
export const incomingOf = (env: Env['Bindings'] | undefined): RequestMeta => {
  const raw = env?.incoming?.rawHeaders
  return {
    clientAddress: env?.incoming?.socket?.remoteAddress,
    rawHeaders: raw && shownHeaders(raw),
    fetch: nodeUpstreamFetch,
  }
}
