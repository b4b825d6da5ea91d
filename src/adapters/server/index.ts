import { type ServerType, serve } from '@hono/node-server'
import { type RequestListener, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SandboxApp } from '../../core/app/app.js'
import type { AppOptions } from '../../apps/page-app.js'
import { createServedApp } from '../../apps/server-app.js'
import { checkControlExposure } from '../../core/control/origin.js'
import { nodeFetch } from './app.js'
import { targetProblem, targetRefusal } from '../../core/http/target.js'

export { createHonoApp } from './app.js'
/** The app the server serves, `/mcp` included (docs/agents.md): what to hand `createHonoApp` in a Hono app of your own. */
export { createServedApp } from '../../apps/server-app.js'
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
  const app = createServedApp(options)
  await app.ready()
  await options.beforeListen?.(app)
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve(
      {
        fetch: nodeFetch(app) as never,
        port: options.port ?? 4010,
        hostname: host,
        createServer: refusingOddTargets as never,
      },
      () => resolve(s),
    )
    s.once('error', reject)
  })
  const port = (server.address() as AddressInfo).port
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    app,
    url: `http://${shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
      }),
  }
}

/**
 * node:http's server, with a request target no URL of ours can hold (`OPTIONS *`, a user in an
 * absolute-form target) answered 400 naming the rule before @hono/node-server sees it: it
 * would answer an empty 400, or a 500 when the request's URL is read.
 */
function refusingOddTargets(options: object, listener: RequestListener): ReturnType<typeof createServer> {
  return createServer(options, (req, res) => {
    const problem = req.url?.startsWith('/') ? undefined : targetProblem(req.url ?? '')
    if (problem === undefined) return listener(req, res)
    const body = targetRefusal(problem)
    req.resume()
    res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  })
}
