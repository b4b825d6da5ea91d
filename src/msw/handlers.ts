import { http, type HttpHandler } from 'msw'
import { type SandboxApp, unmatched } from '../core/app.js'
import type { Method } from '../core/route.js'

export interface HandlerOptions {
  /** Origins to answer (`https://api.example.com`); default: `/api/...` on any origin. */
  origins?: string[]
  /** Who the caller is when there is no token (the rate-limited key); default `page`. */
  clientAddress?: string
}

const verbs: Record<Method, typeof http.get> = { GET: http.get, POST: http.post, PUT: http.put, PATCH: http.patch, DELETE: http.delete }

/**
 * MSW request handlers derived from the route table: the same `handle` pipeline the Node
 * server runs. Used by the browser worker, `msw/node` and Storybook.
 */
export function createHandlers(app: SandboxApp, options: HandlerOptions = {}): HttpHandler[] {
  const prefixes = options.origins?.length ? options.origins.map((o) => o.replace(/\/$/, '')) : ['*']
  const meta = { clientAddress: options.clientAddress ?? 'page' }
  const handlers: HttpHandler[] = []
  const methodsByPath = new Map<string, string[]>()
  for (const route of app.routes) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method])
    for (const prefix of prefixes) {
      handlers.push(verbs[route.method](prefix + route.path, ({ request, params }) => app.handle(route, request, params as Record<string, string>, meta)))
    }
  }
  for (const prefix of prefixes) {
    for (const [path, methods] of methodsByPath) handlers.push(http.all(prefix + path, ({ request }) => unmatched(request, methods)))
    handlers.push(http.all(`${prefix}/api/*`, ({ request }) => unmatched(request, [])))
    handlers.push(http.all(`${prefix}/__sandbox`, ({ request }) => unmatched(request, [])))
    handlers.push(http.all(`${prefix}/__sandbox/*`, ({ request }) => unmatched(request, [])))
  }
  return handlers
}
