import { ok } from '../http/reply.js'
import { defineRoute, type RouteContext } from '../route/route.js'

export const getOpenapi = defineRoute({
  id: 'sandboxOpenapi',
  method: 'GET',
  path: '/__sandbox/openapi.json',
  tag: 'sandbox control',
  auth: { kind: 'control' },
  summary: 'OpenAPI 3.1 document of every route this sandbox serves (assumed ones omitted with --strict)',
  // The app builds its document once; `servers` is this request's origin.
  handler: async (ctx) => ok({ ...(await ctx.app.openapi(servedUrl(ctx))), servers: [{ url: ctx.target.origin }] }),
})

export const openapiRoutes = [getOpenapi]

/** The sandbox's URL, origin and base path: OAuth's issuer (agents/grants.ts `issuerOf`), whose `resource` values the document states. */
function servedUrl(ctx: RouteContext): string {
  return ctx.target.origin + ctx.target.base
}
