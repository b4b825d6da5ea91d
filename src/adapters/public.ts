/*
 * What the in-process entries export besides their own (`fleet-sandbox/node`, `/browser`,
 * `/storybook`): one list, so an entry is its own functions and `export * from '../public.js'`.
 */
export type * from './admin-types.js'
export type { ActiveScenario } from '../core/scenarios/define.js'
export type { Sandbox } from '../core/sandbox/sandbox.js'
export type { Size } from '../core/seed/seed.js'
export type { FixtureRows } from '../core/store/fixtures.js'
export type {
  KnownScenario,
  NamedScenario,
  ScenarioInput,
  ScenarioListText,
  ScenarioName,
  ScenarioOptions,
  ScenarioText,
  ScenarioWindow,
  ScenarioWindowBound,
} from '../own-scenarios/input.js'
export { SandboxApp } from '../core/app/app.js'
export { defineScenario, type ScenarioDefinition } from '../core/scenarios/define.js'
export { HttpError } from '../core/http/reply.js'
