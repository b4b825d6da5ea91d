import { setupServer } from 'msw/node'
import type { SandboxApp } from '../../src/core/app/app.js'
import type { AppOptions } from '../../src/apps/page-app.js'
import { createHandlers } from '../../src/adapters/msw/handlers.js'
import { createServedApp } from '../../src/apps/server-app.js'
import { startServer } from '../../src/adapters/server/index.js'
import { startWorkerd } from '../../src/engines/workerd/front/launch.js'
import { keepAliveClient } from './keep-alive.js'
import { TEST_WORKER_BUNDLE } from './worker-bundle.js'

/** A running sandbox behind one runtime; `fetch` takes a path such as `/api/notifications`. */
export interface Running {
  app: SandboxApp
  fetch(path: string, init?: RequestInit): Promise<Response>
  close(): Promise<void>
  /** Over HTTP: the origin it listens on. */
  url?: string
  /** Over HTTP: requests that failed on their kept-alive connection (none is allowed; useSandbox checks). */
  connectionErrors?(): string[]
  /** workerd: what the runtime printed besides the request log (errors, warnings). */
  output?(): string
}

export interface Runtime {
  name: string
  /** Served over a socket (not in-process). */
  http?: boolean
  start(options?: Partial<AppOptions>): Promise<Running>
}

/** Fixed start, so dates in assertions are stable; the clock still runs at real pace. */
export const NOW = '2026-11-22T12:00:00.000Z'
const defaults: AppOptions = { seed: 1, now: NOW, size: 'small' }

const hono: Runtime = {
  name: 'hono server (HTTP)',
  http: true,
  async start(options) {
    const server = await startServer({ ...defaults, ...options, port: 0, host: '127.0.0.1' })
    return overKeptAliveConnections(server.app, server.url, server.close)
  },
}

const ORIGIN = 'http://sandbox.test'
const mswNode: Runtime = {
  name: 'msw/node (in-process)',
  async start(options) {
    const app = createServedApp({ ...defaults, ...options })
    await app.ready()
    // Only this origin is answered, so requests to real servers in the same process pass through.
    const server = setupServer(
      ...createHandlers({ fetch: app.fetch, matcher: app.matcher }, { origins: [ORIGIN], clientAddress: '127.0.0.1' }),
    )
    server.listen({ onUnhandledRequest: 'bypass' })
    return { app, fetch: (path, init) => fetch(ORIGIN + path, init), close: async () => server.close() }
  },
}

/**
 * workerd through miniflare (`--engine workerd`): each sandbox id is a Durable Object, each
 * answer leaves after its writes reach the object's storage. The served app runs inside
 * workerd: `app` here is one built with the same options, for its route table and options
 * only; its sandboxes are not the served ones, so reaching them throws.
 */
const workerd: Runtime = {
  name: 'workerd',
  http: true,
  async start(options) {
    let output = ''
    const server = await startWorkerd({
      ...defaults,
      ...options,
      script: TEST_WORKER_BUNDLE,
      port: 0,
      host: '127.0.0.1',
      output: (text) => (output += text),
    })
    const elsewhere = () => {
      throw new Error('workerd serves its sandboxes in its own process: reach them through HTTP (the control API)')
    }
    const app = Object.create(createServedApp({ ...defaults, ...options }), {
      sandboxes: { get: elsewhere },
      ready: { value: elsewhere },
    }) as SandboxApp
    return { ...overKeptAliveConnections(app, server.url, server.close), output: () => output }
  },
}

/** Requests go as real clients send them: over kept-alive connections, reused (keep-alive.ts). */
function overKeptAliveConnections(app: SandboxApp, url: string, close: () => Promise<void>): Running {
  const client = keepAliveClient()
  return {
    app,
    url,
    fetch: (path, init) => client.fetch(url + path, init),
    connectionErrors: () => client.errors,
    async close() {
      await client.close()
      await close()
    },
  }
}

/** Every behaviour suite runs once per runtime, so the runtimes cannot drift apart. */
export const runtimes: Runtime[] = [hono, mswNode, workerd]
