import type { SandboxApp } from '../core/app/app.js'
import type { Matcher } from '../core/app/matcher.js'
import { type AppOptions, createSandboxApp } from './page-app.js'
import { agentRoutes } from '../core/agents/routes.js'
import { routes } from '../core/app/route-table.js'
import { MCP_PATH, mountMcp } from '../mcp/mount.js'

/**
 * Every route of the runtimes off the browser (Node server, msw/node, workerd): the route table
 * and agent access (OAuth 2.1, docs/agents.md). Handed in here, as createSandboxApp hands in the
 * route table, so the browser entry does not carry it (its gzip budget, test/browser/sandbox.test.ts).
 */
export const serverRoutes = [...routes, ...agentRoutes]

/**
 * What the Node server, `fleet-sandbox/node` and the workerd engine serve: the app of
 * `createSandboxApp` with agent access's routes (OAuth 2.1: serverRoutes) and the MCP server
 * at `/mcp` (src/mcp/server.ts). The browser entry builds
 * its app without it: the MCP SDK stays out of its bundle (docs/agents.md says what a page does).
 */
export function createServedApp(options: AppOptions): SandboxApp {
  return mountMcp(createSandboxApp({ routes: serverRoutes, ...options }))
}

/** What MSW's handlers claim in a process (msw/node): the app's routes and `/mcp`. */
export function servedClaims(app: Pick<SandboxApp, 'matcher'>): Pick<Matcher, 'serves'> {
  return { serves: (method, path) => path === MCP_PATH || app.matcher.serves(method, path) }
}
