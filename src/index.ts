/**
 * `fleet-sandbox`: the runtime-free core and what builds it. The runtimes are their own entries:
 * `fleet-sandbox/node` (msw/node), `/browser` (service worker), `/storybook`, `/server` (the Node server).
 */
export { createSandboxApp, bundledScenarios, type AppOptions } from './apps/page-app.js'
export {
  SandboxApp,
  type SandboxAppOptions,
  type RequestMeta,
  SCENARIO_HEADER,
  FAULT_HEADER,
  CONTROL_TOKEN_HEADER,
} from './core/app/app.js'
export { routes } from './apps/route-table.js'
export { defineRoute, type RouteDef, type RouteContext, type AuthRule, type Method } from './core/route/route.js'
export {
  defineScenario,
  type ScenarioDefinition,
  type ActiveScenario,
  type AppliedScenario,
} from './core/scenarios/define.js'
export { ScenarioRegistry } from './core/scenarios/registry.js'
export { Sandbox, type SandboxConfig, type Snapshot, type SandboxState } from './core/sandbox/sandbox.js'
export { SANDBOX_ID_HEADER, SANDBOX_ID_COOKIE } from './core/sandbox/sandboxes.js'
export type { JournalEntry } from './core/sandbox/journal.js'
export type { OutboxEntry, OutboxKind } from './core/sandbox/outbox.js'
export type { Accounts, Size } from './core/seed/seed.js'
export { HttpError, type Reply } from './core/http/reply.js'
export type { OverrideInfo, OverrideInput } from './core/admin/client.js'
export type { OperationId, ToolName } from '../generated/api/operation-ids.js'
export { scenarios } from '../scenarios/index.js'
export * as accounts from '../fixtures/accounts.js'
