import { type ServerType, serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import type { SandboxApp } from '../../core/app/app.js'
import { type AppOptions, createSandboxApp } from '../../sandbox-app.js'
import { checkControlExposure } from '../../core/control/origin.js'
import { cutIfAsked, incomingOf } from './app.js'

export { createHonoApp } from './app.js'
export { isLoopback } from '../../core/control/origin.js'

export interface ServerOptions extends AppOptions {
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

/** Starts the Node server (@hono/node-server over node:http); resolves once it listens and the default sandbox is seeded. */
export async function startServer(options: ServerOptions = { seed: 1 }): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1'
  checkControlExposure(host, options.control)
  const app = createSandboxApp(options)
  await app.ready()
  await options.beforeListen?.(app)
  const server = await new Promise<ServerType>((resolve, reject) => {
    const fetch = (request: Request, env: unknown) => app.fetch(request, incomingOf(env as never)).then((response) => cutIfAsked(response, env as never))
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
