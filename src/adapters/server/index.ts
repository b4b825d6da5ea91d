import { type ServerType, serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import type { SandboxApp } from '../../core/app/app.js'
import { type AppOptions, createSandboxApp } from '../../sandbox-app.js'
import { afterBody } from '../../core/http/drain.js'
import { type CorsOptions, httpFetch } from '../../core/http/cors.js'
import { checkControlExposure } from '../../core/control/origin.js'
import { incomingOf } from './app.js'

export { createHonoApp } from './app.js'
export { isLoopback } from '../../core/control/origin.js'

export interface ServerOptions extends AppOptions, CorsOptions {
  port?: number
  host?: string
  /** Runs once the default sandbox is ready and before the port opens (the CLI restores `--state` here). */
  beforeListen?(app: SandboxApp): Promise<void> | void
}

export interface RunningServer {
  app: SandboxApp
  url: string
  port: number
  close(): Promise<void>
}

/** Starts the Hono server; resolves once it listens and the default sandbox is seeded. */
export async function startServer(options: ServerOptions = { seed: 1 }): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1'
  checkControlExposure(host, options.control)
  const app = createSandboxApp(options)
  await app.ready()
  await options.beforeListen?.(app)
  const front = httpFetch(app, { corsOrigins: options.corsOrigins })
  const server = await new Promise<ServerType>((resolve, reject) => {
    // An early answer waits for the body it left unread: @hono/node-server's own drain stalls
    // behind the web stream a partial read leaves on the socket, then drops the connection.
    const fetch = (request: Request, env: unknown) => {
      const answer = front(request, incomingOf(env as never))
      return request.method === 'GET' || request.method === 'HEAD' ? answer : afterBody(request, answer)
    }
    const s = serve({ fetch, port: options.port ?? 4010, hostname: host }, () => resolve(s))
    s.once('error', reject)
  })
  const port = (server.address() as AddressInfo).port
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    app,
    url: `http://${shown}:${port}`,
    port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve())
      ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
    }),
  }
}
