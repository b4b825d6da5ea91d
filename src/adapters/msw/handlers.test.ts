import { getResponse, http, type HttpHandler } from 'msw'
import { describe, expect, it } from 'vitest'
import { unmatched } from '../../core/app/app.js'
import type { RouteDef } from '../../core/app/route.js'
import { routes } from '../../core/app/route-table.js'
import { createHandlers, type HandlerApp } from './handlers.js'

/** Answers which route ran with which params, instead of running it. */
const app: HandlerApp = {
  routes,
  handle: async (route, _request, params) => Response.json({ route: `${route.method} ${route.path}`, params: { ...params } }),
}

/** The handlers as they were, one MSW pattern per route and path: the behaviour the table must keep. */
function patternHandlers(origins?: string[]): HttpHandler[] {
  const prefixes = origins?.length ? origins.map((o) => o.replace(/\/$/, '')) : ['*']
  const verbs = { GET: http.get, POST: http.post, PUT: http.put, PATCH: http.patch, DELETE: http.delete }
  const handlers: HttpHandler[] = []
  const methodsByPath = new Map<string, string[]>()
  for (const route of routes as RouteDef[]) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method])
    for (const prefix of prefixes) handlers.push(verbs[route.method](prefix + route.path, ({ request, params }) => app.handle(route, request, named(params as Record<string, string>))))
  }
  for (const prefix of prefixes) {
    for (const [path, methods] of methodsByPath) handlers.push(http.all(prefix + path, ({ request }) => unmatched(request, methods)))
    handlers.push(http.all(`${prefix}/api/*`, ({ request }) => unmatched(request, [])))
    handlers.push(http.all(`${prefix}/__sandbox`, ({ request }) => unmatched(request, [])))
    handlers.push(http.all(`${prefix}/__sandbox/*`, ({ request }) => unmatched(request, [])))
  }
  return handlers
}

/** path-to-regexp also hands over its unnamed groups (`0`: the origin); routes only read named params. */
const named = (params: Record<string, string>) => Object.fromEntries(Object.entries(params).filter(([k]) => !/^\d+$/.test(k)))

async function answer(handlers: HttpHandler[], method: string, url: string): Promise<string> {
  const res = await getResponse(handlers, new Request(url, { method }))
  if (!res) return 'not claimed'
  return `${res.status} ${res.headers.get('allow') ?? ''} ${await res.text()}`
}

const PATHS = [
  '/api/notifications', '/api/notifications/', '/api/notifications//', '/API/Notifications', '/x/api/notifications', '/a/b/api/layers/7',
  '/api/notifications/n_1', '/api/notifications/%6E%20x', '/api/notifications/a%2Fb', '/api/notifications/abc/', '/api/notifications/abc/def',
  '/api', '/api/', '/api/nope', '/apix/notifications', '/__sandbox', '/__sandbox/', '/__sandboxx', '/__sandbox/health', '/__sandbox/HEALTH/',
  '/__sandbox/nope/deeper', '/__sandbox/sandboxes/abc', '/__sandbox/openapi.json', '/__sandbox/openapiXjson', '/x/__sandbox', '/api/v1/gps/list',
  '/api/v1/gps/123', '/api/v1/gps/get/123', '/api/v1/billing/invoices/inv_1/publish', '/index.html', '/', '//api/layers', '/api/quotes/ai/q%C3%B1',
]
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']
const BASES = ['http://sandbox.test', 'http://sandbox.test:8080', 'https://api.example.com', 'https://eu.example.com', 'http://other.test']

describe('createHandlers: one handler over the route table', () => {
  it.each([
    ['any origin (default)', undefined],
    ['one origin', ['http://sandbox.test']],
    ['origins with a port, a trailing slash and capitals', ['http://sandbox.test:8080/', 'https://API.example.com']],
    ['an origin with a wildcard', ['https://*.example.com']],
  ])('answers every request as the per-route MSW patterns did: %s', async (_name, origins) => {
    const table = createHandlers(app, { origins })
    const patterns = patternHandlers(origins)
    expect(table).toHaveLength(1)
    const differences: string[] = []
    for (const base of BASES) {
      for (const path of PATHS) {
        for (const method of METHODS) {
          const [was, is] = [await answer(patterns, method, base + path), await answer(table, method, base + path)]
          if (was !== is) differences.push(`${method} ${base}${path}: was ${was}, is ${is}`)
        }
      }
    }
    expect(differences).toEqual([])
  })

  it('picks the first route of the table when two paths match, and decodes params', async () => {
    const [handler] = createHandlers(app)
    expect(await answer([handler], 'GET', 'http://x.test/api/v1/gps/list')).toContain('"route":"GET /api/v1/gps/list"')
    expect(await answer([handler], 'GET', 'http://x.test/api/quotes/ai/q%C3%B1%2F1')).toContain('"params":{"quoteId":"qñ/1"}')
  })

  it('keeps a malformed escape as written instead of failing the lookup', async () => {
    const [handler] = createHandlers(app)
    expect(await answer([handler], 'GET', 'http://x.test/api/quotes/ai/%zz')).toContain('"params":{"quoteId":"%zz"}')
    expect(await answer([handler], 'GET', 'http://x.test/api/nope/%zz')).toMatch(/^404 /)
  })
})
