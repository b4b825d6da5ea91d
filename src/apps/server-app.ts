import type { SandboxApp } from '../core/app/app.js'
import { type AppOptions, createSandboxApp } from './page-app.js'
import { agentRoutes } from '../core/agents/routes.js'
import { routes } from './route-table.js'
import { mcpMount } from '../mcp/mount.js'

/**
 * Every route of the runtimes off the browser (Node server, msw/node, workerd): the route table
 * and agent access (OAuth 2.1, docs/agents.md). Handed in here, as createSandboxApp hands in the
 * route table, so the browser entry does not carry it (its gzip budget, test/browser/sandbox.test.ts).
 */
export const serverRoutes = [...routes, ...agentRoutes]

/**
 * What the Node server, `fleet-sandbox/node` and the workerd engine serve: the app of
 * `createSandboxApp` with agent access's routes (OAuth 2.1: serverRoutes) and the MCP server
 * mounted at `/mcp` (src/mcp/mount.ts), so its matcher claims `/mcp` for msw/node too. The
 * browser entry builds its app without them: the MCP SDK stays out of its bundle (docs/agents.md
 * says what a page does).
 */
export function createServedApp(options: AppOptions): SandboxApp {
  return createSandboxApp({ routes: serverRoutes, mounts: [mcpMount()], ...options })
}
