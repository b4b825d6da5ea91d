import { type WorkerVariable, appOptionsOf, optionRows, originList, readOptions } from '../../core/options/options.js'
import { type AppOptions, bundledScenarios } from '../../sandbox-app.js'
import type { CorsOptions } from '../server/app.js'

// The few Workers runtime types this adapter uses, so the package needs no Workers type package.

export interface ObjectStorage {
  get<T = unknown>(key: string): Promise<T | undefined>
  list<T = unknown>(options?: { prefix?: string }): Promise<Map<string, T>>
  put(entries: Record<string, unknown>): Promise<void>
  delete(keys: string[]): Promise<number>
  deleteAll(): Promise<void>
  setAlarm(scheduledTime: number): Promise<void>
  deleteAlarm(): Promise<void>
}

export interface ObjectState {
  readonly storage: ObjectStorage
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>
}

export interface ObjectStub {
  fetch(input: Request | string, init?: RequestInit): Promise<Response>
}

export interface ObjectNamespace {
  idFromName(name: string): unknown
  get(id: unknown): ObjectStub
}

/** The option variables a deployment reads (`vars` in wrangler.jsonc, the token as a secret). */
const variables = optionRows('all').filter((o) => o.worker)

/**
 * Bindings of the Worker: the two Durable Object classes, and the options either as one JSON
 * value (what `fleet-sandbox --engine workerd` passes) or as the command line's environment
 * variables (what a `wrangler.jsonc` sets under `vars`, the token as a secret).
 */
export type WorkerEnv = {
  SANDBOX: ObjectNamespace
  SANDBOX_DIRECTORY: ObjectNamespace
  SANDBOX_OPTIONS?: string
} & { [V in WorkerVariable]?: string }

export interface WorkerOptions extends AppOptions, CorsOptions {
  sandboxIdleMs: number
  maxSandboxes: number
}

/** Calls between the Worker's own objects; the Worker strips it from every outside request. */
export const INTERNAL_HEADER = 'x-sandbox-internal'

const read = new WeakMap<WorkerEnv, WorkerOptions>()

/** The sandbox options of this deployment, read once per isolate; a wrong variable throws naming it. */
export function optionsFrom(env: WorkerEnv): WorkerOptions {
  let options = read.get(env)
  if (!options) read.set(env, (options = parse(env)))
  return options
}

function parse(env: WorkerEnv): WorkerOptions {
  const vars = env as unknown as Record<string, string | undefined>
  const read = (given: boolean) => readOptions(variables.map((o) => o.name), (o) => (given && o.env && vars[o.env]) || undefined, (o) => o.env!)
  if (env.SANDBOX_OPTIONS) {
    const { logRequests, ...options } = JSON.parse(env.SANDBOX_OPTIONS) as WorkerOptions & { logRequests?: boolean }
    const defaults = appOptionsOf(read(false), bundledScenarios, 'SANDBOX_SCENARIO')
    return { ...options, sandboxIdleMs: options.sandboxIdleMs ?? defaults.sandboxIdleMs, maxSandboxes: options.maxSandboxes ?? defaults.maxSandboxes, log: logRequests ? requestLog : undefined }
  }
  const values = read(true)
  // A deployment is reachable by anyone: as with a non-loopback --host, no open control API.
  if (!values.controlToken && !values.noControl) {
    throw new Error('SANDBOX_CONTROL_TOKEN: a deployed sandbox needs a control token (npx wrangler secret put SANDBOX_CONTROL_TOKEN; for wrangler dev, in .dev.vars), or SANDBOX_NO_CONTROL=true')
  }
  return {
    ...appOptionsOf(values, bundledScenarios, 'SANDBOX_SCENARIO'),
    log: values.log ? requestLog : undefined,
    corsOrigins: originList(values.corsOrigin, 'SANDBOX_CORS_ORIGIN'),
  }
}

/** Marks the app's log lines on workerd's standard output, for the command line to pick out. */
export const LOG_MARK = '[fleet-sandbox] '
/** The app's log (requests, evictions); a deployment's reaches `wrangler tail`. */
const requestLog = (line: string) => console.log(LOG_MARK + line)

/** The object of one sandbox id (`default` without one). */
export const objectFor = (env: WorkerEnv, id: string): ObjectStub => env.SANDBOX.get(env.SANDBOX.idFromName(id))

export const directoryOf = (env: WorkerEnv): ObjectStub => env.SANDBOX_DIRECTORY.get(env.SANDBOX_DIRECTORY.idFromName('directory'))

/** A call to one of the Worker's own objects (never reachable from outside: see INTERNAL_HEADER). */
export async function call<T>(stub: ObjectStub, path: string, body?: unknown): Promise<T> {
  const res = await stub.fetch(`https://sandbox.internal${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { [INTERNAL_HEADER]: '1', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as T
}
