import type { SandboxApp } from '../core/app/app.js'
import { frontDoor } from '../core/app/front-door.js'
import type { ControlOrigins } from '../core/control/origin.js'
import { splitUrl } from '../core/http/url.js'
import { MCP_PATH } from './path.js'

export { MCP_PATH }

export interface McpOptions {
  /** Every message through the SDK, the plain tool calls too (the reference test/mcp/tuned.test.ts compares the tuned path with). */
  plain?: boolean
}

/**
 * Hands `/mcp` of an app to its MCP server (server.ts), behind a front door of its own
 * (preflights, CORS, the unread body: front-door.ts); every other path goes to the app's. The
 * browser entry does not do this: a page's service worker serves no MCP client (docs/agents.md).
 *
 * The server, and the SDK with it, is loaded on the first `/mcp` request: read at start, its
 * code and schemas cost RSS in a process that serves no agent (idle at --size large, beside a
 * build without it; docs/benchmarks-history.md).
 */
export function mountMcp<A extends SandboxApp>(app: A, options: McpOptions = {}): A {
  const inner = app.fetch
  const origins: ControlOrigins = { corsOrigins: app.options.corsOrigins, pageOrigin: app.options.pageOrigin, token: (app.options.control || undefined)?.token }
  let loaded: ReturnType<typeof serverOf> | undefined
  const serverOf = async () => (await import('./server.js')).mcpServer(app, origins, options)
  const door = frontDoor(origins, async (request, meta, url, cors) => (await (loaded ??= serverOf()))(request, meta, url, cors))
  const fetch: SandboxApp['fetch'] = (request, meta = {}) => {
    const path = meta.path ?? splitUrl(request.url).path
    return path === MCP_PATH ? door(request, meta) : inner(request, meta)
  }
  // The app's own `fetch` is a property made in its constructor: replaced here, for every runtime that calls it.
  Object.defineProperty(app, 'fetch', { value: fetch })
  return app
}
