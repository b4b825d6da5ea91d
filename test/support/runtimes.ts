import { setupServer } from 'msw/node'
import type { SandboxApp } from '../../src/core/app/app.js'
import { type AppOptions, createSandboxApp } from '../../src/sandbox-app.js'
import { createHandlers } from '../../src/adapters/msw/handlers.js'
import { startServer } from '../../src/adapters/server/index.js'
import { startWorkerd } from '../../src/cli/workerd.js'
import { TEST_WORKER_BUNDLE } from './worker-bundle.js'

/** A running sandbox behind one runtime; `fetch` takes a path such as `/api/notifications`. */
export interface Running {
  app: SandboxApp
  fetch(path: string, init?: RequestInit): Promise<Response>
  close(): Promise<void>
}

export interface Runtime {
  name: string
  start(options?: Partial<AppOptions>): Promise<Running>
}

/** Fixed start, so dates in assertions are stable; the clock still runs at real pace. */
export const NOW = '2026-11-22T12:00:00.000Z'
const defaults: AppOptions = { seed: 1, now: NOW, size: 'small' }

const hono: Runtime = {
  name: 'hono server (HTTP)',
  async start(options) {
    const server = await startServer({ ...defaults, ...options, port: 0, host: '127.0.0.1' })
    return { app: server.app, fetch: (path, init) => fetch(server.url + path, init), close: server.close }
  },
}

const ORIGIN = 'http://sandbox.test'
const mswNode: Runtime = {
  name: 'msw/node (in-process)',
  async start(options) {
    const app = createSandboxApp({ ...defaults, ...options })
    await app.ready()
    // Only this origin is answered, so requests to real servers in the same process pass through.
    const server = setupServer(...createHandlers(app, { origins: [ORIGIN], clientAddress: '127.0.0.1' }))
    server.listen({ onUnhandledRequest: 'bypass' })
    return { app, fetch: (path, init) => fetch(ORIGIN + path, init), close: async () => server.close() }
  },
}

/**
 * workerd through miniflare: each sandbox id is a Durable Object. The app is not reachable
 * from here (it runs inside workerd); `app` is a local one with the same options, for reading
 * what the seed holds, never for changing the served world.
 */
const workerd: Runtime = {
  name: 'workerd',
  async start(options) {
    const all = { ...defaults, ...options }
    const server = await startWorkerd({ ...all, script: TEST_WORKER_BUNDLE, port: 0, host: '127.0.0.1' })
    let app: SandboxApp | undefined
    return {
      get app() {
        return (app ??= new SandboxApp(all))
      },
      fetch: (path, init) => fetch(server.url + path, init),
      close: server.close,
    }
  },
}

/** Every behaviour suite runs once per runtime, so the runtimes cannot drift apart. */
export const runtimes: Runtime[] = [hono, mswNode, workerd]
