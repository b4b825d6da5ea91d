import type { SandboxApp } from './core/app/app.js'
import type { Matcher } from './core/app/matcher.js'
import { type AppOptions, createSandboxApp } from './sandbox-app.js'
import { serverRoutes } from './server-app.js'
import { MCP_PATH, mountMcp } from './mcp/mount.js'

/**
 * What the Node server, `fleet-sandbox/node` and the workerd engine serve: the app of
 * `createSandboxApp` with agent access's routes (OAuth 2.1, src/server-app.ts) and the MCP server
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
