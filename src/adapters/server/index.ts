import { type ServerType, serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import type { SandboxApp } from '../../core/app/app.js'
import { type AppOptions, createSandboxApp } from '../../sandbox-app.js'
import { afterBody } from '../../core/http/drain.js'
import { type CorsOptions, httpFetch, incomingOf } from './app.js'

export { createHonoApp } from './app.js'

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

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/

export const isLoopback = (host: string) => LOOPBACK.test(host)

/** Starts the Hono server; resolves once it listens and the default sandbox is seeded. */
export async function startServer(options: ServerOptions = { seed: 1 }): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1'
  if (!isLoopback(host) && options.control !== false && !options.control?.token) {
    throw new Error(`--host ${host} is not loopback: the control API needs --control-token T, or turn it off with --no-control`)
  }
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
