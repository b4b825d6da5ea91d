import type { Size } from '../../core/seed/seed.js'
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

/**
 * Bindings of the Worker: the two Durable Object classes, and the options either as one JSON
 * value (what `fleet-sandbox --engine workerd` passes) or as the command line's environment
 * variables (what a `wrangler.jsonc` sets under `vars`, the token as a secret).
 */
export interface WorkerEnv {
  SANDBOX: ObjectNamespace
  SANDBOX_DIRECTORY: ObjectNamespace
  SANDBOX_OPTIONS?: string
  SANDBOX_SEED?: string
  SANDBOX_NOW?: string
  SANDBOX_SIZE?: string
  SANDBOX_NOTIFICATIONS?: string
  SANDBOX_SCENARIO?: string
  SANDBOX_STRICT?: string
  SANDBOX_CONTROL_TOKEN?: string
  SANDBOX_NO_CONTROL?: string
  SANDBOX_IDLE_SECONDS?: string
  SANDBOX_MAX_SANDBOXES?: string
  SANDBOX_LOG?: string
  SANDBOX_CORS_ORIGIN?: string
}

export interface WorkerOptions extends AppOptions, CorsOptions {
  sandboxIdleMs: number
  maxSandboxes: number
}

/** Set by the Worker on every request it forwards: the sandbox id the object serves. */
export const OBJECT_HEADER = 'x-sandbox-object'
/** Calls between the Worker's own objects; the Worker strips it from every outside request. */
export const INTERNAL_HEADER = 'x-sandbox-internal'

const DEFAULT_IDLE_MS = 30 * 60_000
const DEFAULT_MAX = 200

const truthy = (v: string | undefined) => ['true', '1', 'yes'].includes(v ?? '')

function int(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name}: must be an integer from ${min} to ${max}, got "${value}"`)
  return n
}

/** The sandbox options of this deployment; a wrong variable throws naming it. */
export function optionsFrom(env: WorkerEnv): WorkerOptions {
  if (env.SANDBOX_OPTIONS) {
    const { logRequests, ...options } = JSON.parse(env.SANDBOX_OPTIONS) as WorkerOptions & { logRequests?: boolean }
    return { ...options, sandboxIdleMs: options.sandboxIdleMs ?? DEFAULT_IDLE_MS, maxSandboxes: options.maxSandboxes ?? DEFAULT_MAX, log: logRequests ? requestLog : undefined }
  }
  const size = env.SANDBOX_SIZE || undefined
  if (size && !['small', 'medium', 'large'].includes(size)) throw new Error(`SANDBOX_SIZE: must be small, medium or large, got "${size}"`)
  const now = env.SANDBOX_NOW || undefined
  if (now && Number.isNaN(Date.parse(now))) throw new Error(`SANDBOX_NOW: must be an ISO 8601 date-time, got "${now}"`)
  const token = env.SANDBOX_CONTROL_TOKEN || undefined
  // A deployment is reachable by anyone: as with a non-loopback --host, no open control API.
  if (!token && !truthy(env.SANDBOX_NO_CONTROL)) {
    throw new Error('SANDBOX_CONTROL_TOKEN: a deployed sandbox needs a control token (npx wrangler secret put SANDBOX_CONTROL_TOKEN; for wrangler dev, in .dev.vars), or SANDBOX_NO_CONTROL=true')
  }
  return {
    seed: int('SANDBOX_SEED', env.SANDBOX_SEED, 0, 2 ** 31 - 1) ?? 1,
    now: now ? new Date(now).toISOString() : undefined,
    size: size as Size | undefined,
    notifications: int('SANDBOX_NOTIFICATIONS', env.SANDBOX_NOTIFICATIONS, 0, 1_000_000),
    scenarios: bundledScenarios.parseList(env.SANDBOX_SCENARIO ?? '', 'SANDBOX_SCENARIO'),
    strict: truthy(env.SANDBOX_STRICT),
    control: truthy(env.SANDBOX_NO_CONTROL) ? false : token ? { token } : {},
    sandboxIdleMs: (int('SANDBOX_IDLE_SECONDS', env.SANDBOX_IDLE_SECONDS, 1, 31_536_000) ?? DEFAULT_IDLE_MS / 1000) * 1000,
    maxSandboxes: int('SANDBOX_MAX_SANDBOXES', env.SANDBOX_MAX_SANDBOXES, 1, 100_000) ?? DEFAULT_MAX,
    log: truthy(env.SANDBOX_LOG) ? requestLog : undefined,
    corsOrigins: env.SANDBOX_CORS_ORIGIN ? env.SANDBOX_CORS_ORIGIN.split(',').map((o) => o.trim()).filter(Boolean) : undefined,
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
