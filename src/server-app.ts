import { agentRoutes } from './core/agents/routes.js'
import { routes } from './core/app/route-table.js'

/**
 * Every route of the runtimes off the browser (Node server, msw/node, workerd): the route table
 * and agent access (OAuth 2.1, docs/agents.md). Handed in here, as createSandboxApp hands in the
 * route table, so the browser entry does not carry it (its gzip budget, test/browser/sandbox.test.ts);
 * createServedApp (src/served-app.ts) serves them.
 */
export const serverRoutes = [...routes, ...agentRoutes]
