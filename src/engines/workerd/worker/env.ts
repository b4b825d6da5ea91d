import type { WorkerVariable } from '../../../core/options/options.js'
import { type DeploymentOptions, deploymentOptions } from '../core/deployment.js'
import { knownScenarios } from '../../../own-scenarios/worker.js'

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
export type WorkerEnv = {
  SANDBOX: ObjectNamespace
  SANDBOX_DIRECTORY: ObjectNamespace
  SANDBOX_OPTIONS?: string
  /** Set by the command line only: the key its front sends with a batch of requests (src/engines/workerd/core/batch.ts). */
  SANDBOX_FRONT_KEY?: string
} & { [V in WorkerVariable]?: string }
export type WorkerOptions = DeploymentOptions & { log?: (line: string) => void }

/** Calls between the Worker's own objects; the Worker strips it from every outside request. */
export const INTERNAL_HEADER = 'x-sandbox-internal'
/** Marks the app's log lines on workerd's standard output, for the command line to pick out. */
export const LOG_MARK = '[fleet-sandbox] '

const read = new WeakMap<WorkerEnv, WorkerOptions>()

/**
 * The deployment's options, read once per isolate: read on every request, they were a visible
 * share of the Worker's CPU (bench: `npm run bench -- --only workerd`; docs/benchmarks-history.md).
 */
export function optionsFrom(env: WorkerEnv): WorkerOptions {
  let options = read.get(env)
  if (!options) {
    const o = deploymentOptions(env, knownScenarios())
    // The app's log (requests, evictions); a deployment's reaches `wrangler tail`.
    read.set(env, (options = { ...o, log: o.logRequests ? (line) => console.log(LOG_MARK + line) : undefined }))
  }
  return options
}

/** The object of one sandbox id (`default` without one), and the directory of them all. */
export const objectFor = (env: WorkerEnv, id: string): ObjectStub => env.SANDBOX.get(env.SANDBOX.idFromName(id))
export const directoryOf = (env: WorkerEnv): ObjectStub =>
  env.SANDBOX_DIRECTORY.get(env.SANDBOX_DIRECTORY.idFromName('directory'))

/** A call to a method of one of the Worker's own objects (never reachable from outside: INTERNAL_HEADER). */
export async function call<T>(stub: ObjectStub, name: string, ...args: unknown[]): Promise<T> {
  return JSON.parse(await callText(stub, name, ...args)) as T
}

/** `call`, its answer as the JSON text the object wrote. */
export async function callText(stub: ObjectStub, name: string, ...args: unknown[]): Promise<string> {
  const res = await stub.fetch(`https://sandbox.internal/${name}`, {
    method: 'POST',
    headers: { [INTERNAL_HEADER]: '1' },
    body: JSON.stringify(args),
  })
  if (!res.ok) throw new Error(await res.text())
  return res.text()
}

/** The other end of `call`: one of `methods`, by name. */
export async function answerCall(
  request: Request,
  methods: Record<string, (...args: never[]) => unknown>,
): Promise<Response> {
  const name = new URL(request.url).pathname.slice(1)
  if (!Object.hasOwn(methods, name)) return new Response('no such call', { status: 404 })
  try {
    return Response.json((await methods[name](...((await request.json()) as never[]))) ?? null)
  } catch (error) {
    return new Response((error as Error).message, { status: (error as { status?: number }).status ?? 500 })
  }
}
