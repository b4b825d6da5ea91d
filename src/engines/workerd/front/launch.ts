import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Readable } from 'node:stream'
import type { Miniflare, MiniflareOptions } from 'miniflare'
import type { FixtureRows } from '../../../core/store/fixtures.js'
import { workerWithScenarios } from '../../../own-scenarios/worker-modules.js'
import type { ServerOptions } from '../../../adapters/server/index.js'
import { checkControlExposure } from '../../../core/control/origin.js'
import type { SandboxSummary } from '../../../core/sandbox/summary.js'
import type { StartEngine } from '../../engine.js'
import { LOG_MARK, type ObjectNamespace, call as callObject, callText as callObjectText } from '../worker/env.js'
import { type Front, startFront } from './front.js'
import { guard, release, workerdChildren } from './watchdog.js'
import { shieldFromGroupSignals } from './signals.js'

export interface WorkerdOptions extends Omit<ServerOptions, 'beforeListen'> {
  /** The bundled Worker (`dist/worker.mjs`, scripts/build-worker.mjs). */
  script: string
  /** Folder of the Durable Objects' storage; kept across starts. Default: a fresh temporary one, removed on close. */
  persist?: string
  /** workerd's other output (errors, warnings); default: discard it. */
  output?: (text: string) => void
  /** Runs once the default sandbox is seeded and before the port opens (the command line restores `--state` here). */
  beforeListen?(call: RunningWorkerd['call']): Promise<void>
  /** Opens workerd's V8 inspector on this loopback port (bench/profile-workerd.mjs). */
  inspectorPort?: number
  /** Your scenario files (`--scenarios DIR`), bundled beside the Worker at start (src/own-scenarios/worker-modules.ts). */
  scenarioFiles?: readonly string[]
  /** How long their hooks may take (`--scenario-timeout`). */
  scenarioTimeoutMs?: number
}

export interface RunningWorkerd {
  url: string
  port: number
  /** A call to the default sandbox's object that skips the Worker (banner, --state, --fixtures). */
  call<T>(name: string, ...args: unknown[]): Promise<T>
  /** The same, the answer as its JSON text. */
  callText(name: string, ...args: unknown[]): Promise<string>
  /** Batches the front sent, the requests in them, and those sent back to go alone (src/engines/workerd/front/batcher.ts). */
  batches: { batches: number; requests: number; rerouted: number }
  /** `--watch`: a changed fixture file, replaced in every world alive and in every world made from now on. */
  replaceFixtures(rows: FixtureRows): Promise<void>
  /** `--watch`: a changed scenario file: the Worker is rebuilt with these files and workerd restarted; state stays in storage. */
  reloadScenarios(files: readonly string[]): Promise<void>
  close(): Promise<void>
}

// Current miniflare needs Node 22; Node 20 keeps the last release that runs there.
export const MINIFLARE_HINT = `--engine workerd needs the miniflare package: npm install -D ${Number(process.versions.node.split('.')[0]) >= 22 ? 'miniflare' : 'miniflare@4.20260426.0 (the last release for Node 20; current ones need Node 22)'}`
const COMPATIBILITY_DATE = '2026-04-20'

async function loadMiniflare(): Promise<typeof import('miniflare')> {
  try {
    return await import('miniflare')
  } catch {
    throw new Error(MINIFLARE_HINT)
  }
}

/** The same sandbox served by workerd through miniflare: one Durable Object per sandbox id. */
export async function startWorkerd(options: WorkerdOptions): Promise<RunningWorkerd> {
  const host = options.host ?? '127.0.0.1'
  checkControlExposure(host, options.control)
  const { Miniflare } = await loadMiniflare()
  const others = new Set(workerdChildren())
  const run: Run = {
    options,
    persist: options.persist ?? mkdtempSync(join(tmpdir(), 'fleet-sandbox-workerd-')),
    sandbox: sandboxOptions(options),
    // Only this process's front may batch requests (src/engines/workerd/core/batch.ts).
    batchKey: randomUUID(),
    own: options.scenarioFiles?.length
      ? await workerWithScenarios(options.script, options.scenarioFiles, options.scenarioTimeoutMs)
      : undefined,
    directPort: 0,
    // SIGKILL of this process runs no handler: the watchdog stops workerd then.
    runtime: [],
    adopt() {
      for (const pid of workerdChildren())
        if (!others.has(pid) && !run.runtime.includes(pid)) (run.runtime.push(pid), guard(pid))
    },
  }
  // A terminal's Ctrl-C reaches the whole process group: workerd waits for the clean stop.
  shieldFromGroupSignals()
  const mf: Miniflare = new Miniflare(miniflareConfig(run))
  const objects = new Objects(mf)
  let front: Front
  try {
    front = await opened(run, mf, objects, host)
  } catch (error) {
    // A port in use or refused is the listen's error (EADDRINUSE, EACCES), as on the Node engine.
    await mf.dispose().catch(() => undefined)
    cleanedUp(run)
    throw error
  }
  return running(run, mf, objects, front, host)
}

/** One workerd run: what it was started with, and what it made that its stop removes. */
interface Run {
  options: WorkerdOptions
  persist: string
  /** The app's options, as the Worker reads them (SANDBOX_OPTIONS). */
  sandbox: Omit<WorkerdOptions, RunOnly>
  batchKey: string
  /** The Worker rebuilt with your scenario files, if any. */
  own: Awaited<ReturnType<typeof workerWithScenarios>> | undefined
  /** The Worker's own socket: the same port when --watch restarts workerd, so the front keeps its target. */
  directPort: number
  /** workerd's processes, each guarded by the watchdog. */
  runtime: number[]
  /** Guards the workerd processes started since (a restart's). */
  adopt(): void
}

type RunOnly =
  | 'script'
  | 'persist'
  | 'output'
  | 'log'
  | 'port'
  | 'host'
  | 'beforeListen'
  | 'inspectorPort'
  | 'scenarioFiles'
  | 'scenarioTimeoutMs'
  | 'scenarioDefinitions'

function sandboxOptions(options: WorkerdOptions): Run['sandbox'] {
  const {
    script: _s,
    persist: _p,
    output: _o,
    log: _l,
    port: _port,
    host: _h,
    beforeListen: _b,
    inspectorPort: _i,
    scenarioFiles: _f,
    scenarioTimeoutMs: _t,
    scenarioDefinitions: _d,
    ...sandbox
  } = options
  return sandbox
}

function miniflareConfig(run: Run): MiniflareOptions {
  const { script, inspectorPort, log, output } = run.options
  return {
    modules: true,
    scriptPath: run.own?.script ?? script,
    // Module names are paths from here: the folder of the entry (src/own-scenarios/worker-modules.ts writes it in a temporary one).
    modulesRoot: dirname(run.own?.script ?? script),
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: ['nodejs_compat'],
    // Only the front (front.ts) listens where the user asked; workerd listens for it alone.
    host: '127.0.0.1',
    port: 0,
    // The front talks to the Worker on a socket of its own: miniflare's entry worker (which
    // rebuilds every request and answer) is left out of the way (docs/engines.md, bench/workerd.mjs).
    unsafeDirectSockets: [{ host: '127.0.0.1', port: run.directPort }],
    durableObjects: {
      SANDBOX: { className: 'SandboxObject', useSQLite: true },
      SANDBOX_DIRECTORY: { className: 'SandboxDirectory', useSQLite: true },
    },
    durableObjectsPersist: run.persist,
    inspectorPort,
    // No placeholder download of Cloudflare's request metadata: nothing leaves the machine.
    cf: false,
    // The upstream sees the caller's request: no `cf-worker` header added on the way out (the
    // object drops the front's `cf-connecting-ip` itself, object.ts).
    stripCfConnectingIp: false,
    bindings: {
      SANDBOX_OPTIONS: JSON.stringify({ ...run.sandbox, logRequests: Boolean(log) }),
      SANDBOX_FRONT_KEY: run.batchKey,
    },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      // The app's log lines (requests, evictions) go to `log`, as the Node engine's do.
      createInterface({ input: stdout }).on('line', (line) =>
        line.startsWith(LOG_MARK) ? log?.(line.slice(LOG_MARK.length)) : output?.(`${line}\n`),
      )
      stderr.on('data', (chunk: Buffer) => output?.(chunk.toString()))
    },
  }
}

/**
 * miniflare types a namespace from @cloudflare/workers-types, which the package does not install
 * (without it the type reads as a Request): what the front calls of it is checked instead.
 */
const isNamespace = (value: unknown): value is ObjectNamespace =>
  typeof value === 'object' &&
  value !== null &&
  'get' in value &&
  typeof value.get === 'function' &&
  'idFromName' in value &&
  typeof value.idFromName === 'function'

function namespace(value: unknown): ObjectNamespace {
  if (!isNamespace(value))
    throw new Error('fleet-sandbox: miniflare handed no Durable Object namespace (idFromName, get)')
  return value
}

/** The Durable Objects of a run: miniflare's stubs die with the runtime they came from, so they are taken again after a restart (--watch). */
class Objects {
  #namespaces: { sandbox: ObjectNamespace; directory: ObjectNamespace } | undefined

  constructor(private readonly mf: Miniflare) {}

  async bind(): Promise<void> {
    this.#namespaces = {
      sandbox: namespace(await this.mf.getDurableObjectNamespace('SANDBOX')),
      directory: namespace(await this.mf.getDurableObjectNamespace('SANDBOX_DIRECTORY')),
    }
  }

  of(id: string) {
    const sandbox = this.#namespaces!.sandbox
    return sandbox.get(sandbox.idFromName(id))
  }

  call: RunningWorkerd['call'] = (name, ...args) => callObject(this.of('default'), name, ...args)

  callText: RunningWorkerd['callText'] = (name, ...args) => callObjectText(this.of('default'), name, ...args)

  /** `method` called on every sandbox's object, the default's and those the directory lists. */
  async each(method: string, args: (id: string) => unknown[] = () => []): Promise<void> {
    const directory = this.#namespaces!.directory
    const listed = await callObject<{ id: string }[]>(directory.get(directory.idFromName('directory')), 'list')
    await Promise.all(['default', ...listed.map((s) => s.id)].map((id) => callObject(this.of(id), method, ...args(id))))
  }

  /** What waits for the objects' batches (the journal's last second) is stored before a clean stop. */
  flush(): Promise<void> {
    return this.each('flush')
  }
}

/** workerd ready, the default sandbox seeded and `beforeListen` run, then the front's port opened. */
async function opened(run: Run, mf: Miniflare, objects: Objects, host: string): Promise<Front> {
  await mf.ready
  const target = await mf.unsafeGetDirectURL()
  run.directPort = Number(target.port)
  run.adopt()
  await objects.bind()
  // Seeds the default sandbox before the port opens, as the Node server does.
  await objects.call('banner')
  await run.options.beforeListen?.(objects.call)
  // A caller gone while an upstream body is silent: workerd does not notice, the object is told.
  const leave = run.sandbox.upstream
    ? (id: string, number: string) => void callObject(objects.of(id), 'leave', number).catch(() => undefined)
    : undefined
  return startFront({ host, port: run.options.port ?? 4010, target, batchKey: run.batchKey, leave })
}

/** What a run leaves behind goes: the watchdog's guards, the rebuilt Worker, a temporary storage folder. */
function cleanedUp(run: Run): void {
  run.runtime.forEach(release)
  run.own?.remove()
  if (!run.options.persist) rmSync(run.persist, { recursive: true, force: true })
}

/** The running engine: --watch's reloads restart workerd behind the front's gate; close stores the objects first. */
function running(run: Run, mf: Miniflare, objects: Objects, front: Front, host: string): RunningWorkerd {
  const { script, output } = run.options
  // --watch on workerd: the objects are in storage, so a restart of workerd loses nothing once they are stored.
  const restart = (before?: () => Promise<void>) =>
    front.hold(async () => {
      await before?.()
      await objects.flush()
      await mf.setOptions(miniflareConfig(run))
      await objects.bind()
      run.adopt()
    })
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${front.port}`,
    port: front.port,
    call: objects.call,
    callText: objects.callText,
    batches: front.batches!,
    async replaceFixtures(rows) {
      // Worlds alive take the rows now (stored whole); worlds made later read them from the options.
      await restart(async () => {
        await objects.each('replaceFixtures', (id) => [id, rows])
        run.sandbox.fixtures = { ...run.sandbox.fixtures, ...rows }
      })
    },
    async reloadScenarios(files) {
      const next = await workerWithScenarios(script, files, run.options.scenarioTimeoutMs)
      const old = run.own
      run.own = next
      try {
        await restart()
      } finally {
        old?.remove()
      }
    },
    async close() {
      await front.close()
      await objects
        .flush()
        .catch((error) =>
          output?.(`fleet-sandbox: storing the sandboxes before the stop failed: ${(error as Error).message}\n`),
        )
      await mf.dispose()
      cleanedUp(run)
    },
  }
}

/**
 * `fleet-sandbox --engine workerd`, driven by the command line like the Node engine (engine.ts):
 * --fixtures rows travel in the options, so every object shapes its world with them.
 */
export const startWorkerdEngine: StartEngine = async ({ beforeListen, ...options }) => {
  // Beside the bundled command line (dist/fleet-sandbox.mjs), as scripts/build-worker.mjs writes it.
  const script = fileURLToPath(new URL('./worker.mjs', import.meta.url))
  const handlers = (signal: NodeJS.Signals) => new Set(process.listeners(signal))
  const before = { SIGINT: handlers('SIGINT'), SIGTERM: handlers('SIGTERM') }
  let startMark = ''
  const server = await startWorkerd({
    ...options,
    script,
    output: (text) => process.stderr.write(text),
    async beforeListen(call) {
      await beforeListen({ restore: (state, why) => call('restore', state, why) })
      startMark = await call<string>('changes')
    },
  })
  // miniflare's own handlers exit at once (code 130): the command line stops it, as it stops the Node engine.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) if (!before[signal].has(listener)) process.off(signal, listener)
  }
  return {
    url: server.url,
    engineLine: `  engine: workerd (miniflare), one Durable Object per sandbox id, ${options.persist ? `kept in ${options.persist}` : 'gone on exit (--persist DIR keeps them)'}`,
    summary: () => server.call<SandboxSummary>('banner'),
    snapshot: () => server.call('snapshot'),
    // As the object wrote it: 100,000 notifications are not read and written again here.
    snapshotText: () => server.callText('snapshot'),
    changes: () => server.call<string>('changes'),
    startMark,
    close: server.close,
    reload: { fixtures: server.replaceFixtures, scenario: (_, files) => server.reloadScenarios(files) },
  }
}
