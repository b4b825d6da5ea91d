import { Hono } from 'hono'
import type { SandboxApp } from '../../core/app/app.js'
import type { RequestMeta } from '../../core/app/front-door.js'

type Env = { Bindings: { incoming?: { socket?: { remoteAddress?: string }; rawHeaders?: string[] } } }

/** The sandbox as a Hono app, to mount in one of your own: every path goes to the front door. */
export function createHonoApp(app: SandboxApp): Hono<Env> {
  return new Hono<Env>().all('*', (c) => app.fetch(c.req.raw, incomingOf(c.env)))
}

/** @hono/node-server hands node:http's request as `incoming`. */
export const incomingOf = (env: Env['Bindings'] | undefined): RequestMeta => ({ clientAddress: env?.incoming?.socket?.remoteAddress, rawHeaders: env?.incoming?.rawHeaders })
