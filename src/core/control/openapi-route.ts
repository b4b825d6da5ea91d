import type { SandboxAppOptions } from '../app/app.js'
import { ok } from '../http/reply.js'
import { openapiDocument } from './openapi.js'
import type { RouteDef } from '../app/route.js'
import { defineRoute, servedRoutes } from '../app/route.js'

/** One document per served route set; `servers` is filled per request. */
const cache = new Map<string, Record<string, unknown>>()

export const getOpenapi = defineRoute({
  id: 'sandboxOpenapi', method: 'GET', path: '/__sandbox/openapi.json', tag: 'sandbox control', auth: { kind: 'control' },
  summary: 'OpenAPI 3.1 document of every route this sandbox serves (assumed ones omitted with --strict)',
  async handler(ctx) {
    // The sandbox's config is the SandboxApp's options object, so it carries `strict` and `control`.
    const options = ctx.sandbox.config as Partial<SandboxAppOptions>
    const key = `${Boolean(options.strict)}|${options.control === false}`
    let doc = cache.get(key)
    if (!doc) {
      // Imported lazily: the route table includes this module.
      const { routes } = (await import('../app/route-table.js')) as { routes: RouteDef[] }
      doc = openapiDocument(servedRoutes(routes, options), { strict: options.strict })
      cache.set(key, doc)
    }
    return ok({ ...doc, servers: [{ url: ctx.url.origin }] })
  },
})

export const openapiRoutes = [getOpenapi]
