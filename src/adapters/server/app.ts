import { Hono } from 'hono'
import type { SandboxApp } from '../../core/app/app.js'
import { type CorsOptions, type Incoming, httpFetch } from '../../core/http/cors.js'

type Env = { Bindings: { incoming?: { socket?: { remoteAddress?: string }; rawHeaders?: string[] } } }

/** The sandbox as a Hono app, to mount in one of your own: every path goes to the front door. */
export function createHonoApp(app: SandboxApp, cors: CorsOptions = {}): Hono<Env> {
  const front = httpFetch(app, cors)
  return new Hono<Env>().all('*', (c) => front(c.req.raw, incomingOf(c.env)))
}

/** @hono/node-server hands node:http's request as `incoming`. */
export const incomingOf = (env: Env['Bindings'] | undefined): Incoming => ({ clientAddress: env?.incoming?.socket?.remoteAddress, rawHeaders: env?.incoming?.rawHeaders })
