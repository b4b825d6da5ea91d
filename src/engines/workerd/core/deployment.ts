import type { SandboxAppOptions } from '../../../core/app/app.js'
import type { ScenarioRegistry } from '../../../core/scenarios/registry.js'
import { appOptionsOf, optionRows, originList, readOptions } from '../../../core/options/options.js'

/** A deployment's sandbox options: the app's, and how long its isolated sandboxes live. */
export interface DeploymentOptions extends Omit<
  SandboxAppOptions,
  'accounts' | 'scenarioDefinitions' | 'routes' | 'stages' | 'pages' | 'log'
> {
  sandboxIdleMs: number
  maxSandboxes: number
  /** One log line per request (the command line's log, or `SANDBOX_LOG`). */
  logRequests?: boolean
}

/** The option variables a deployment reads (`vars` in wrangler.jsonc, the token as a secret). */
const variables = optionRows('all')
  .filter((o) => o.worker)
  .map((o) => o.name)

/**
 * A deployment's options, read by the options schema from its variables (what a
 * `wrangler.jsonc` sets under `vars`), or taken whole from `SANDBOX_OPTIONS` (the JSON the
 * command line hands workerd, already checked). A wrong variable throws naming it.
 */
export function deploymentOptions(
  vars: Readonly<Record<string, unknown>>,
  scenarios: ScenarioRegistry,
): DeploymentOptions {
  // The Worker's env holds its bindings too (the Durable Object namespaces): a variable is text.
  const text = (name: string | undefined) => {
    const value = name === undefined ? undefined : vars[name]
    return typeof value === 'string' && value !== '' ? value : undefined
  }
  const read = (given: boolean) =>
    readOptions(
      variables,
      (o) => (given ? text(o.env) : undefined),
      (o) => o.env!,
    )
  const whole = text('SANDBOX_OPTIONS')
  if (whole) {
    const options = JSON.parse(whole) as DeploymentOptions
    const defaults = appOptionsOf(read(false), scenarios, 'SANDBOX_SCENARIO')
    return {
      ...options,
      sandboxIdleMs: options.sandboxIdleMs ?? defaults.sandboxIdleMs,
      maxSandboxes: options.maxSandboxes ?? defaults.maxSandboxes,
    }
  }
  const values = read(true)
  // A deployment is reachable by anyone: as with a non-loopback --host, no open control API.
  if (!values.controlToken && !values.noControl) {
    throw new Error(
      'SANDBOX_CONTROL_TOKEN: a deployed sandbox needs a control token (npx wrangler secret put SANDBOX_CONTROL_TOKEN; for wrangler dev, in .dev.vars), or SANDBOX_NO_CONTROL=true',
    )
  }
  return {
    ...appOptionsOf(values, scenarios, 'SANDBOX_SCENARIO'),
    logRequests: values.log,
    corsOrigins: originList(values.corsOrigin, 'SANDBOX_CORS_ORIGIN'),
  }
}
