import type { Mount, Pipeline } from '../core/app/app.js'
import { MCP_PATH } from './path.js'
import type { McpOptions } from './server.js'

export { MCP_PATH }
export type { McpOptions }

/**
 * The MCP server (server.ts) as a mount of the served app at `/mcp` (src/apps/server-app.ts):
 * behind the app's own door (preflights, CORS, the unread body), given the request split once.
 * The browser entry mounts none: a page's service worker serves no MCP client (docs/agents.md).
 *
 * The server, and the SDK with it, is loaded on the first `/mcp` request: read at start, its
 * code and schemas cost RSS in a process that serves no agent (`npm run bench -- --only memory`;
 * docs/benchmarks-history.md).
 */
export function mcpMount(options: McpOptions = {}): Mount {
  return {
    path: MCP_PATH,
    open(app) {
      let loaded: Promise<Pipeline> | undefined
      const server = () =>
        (loaded ??= import('./server.js').then(({ mcpServer }) => mcpServer(app, app.origins, options)))
      return async (request, meta, target, cors) => (await server())(request, meta, target, cors)
    },
  }
}
