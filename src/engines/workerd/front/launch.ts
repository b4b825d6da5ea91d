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
  const persist = options.persist ?? mkdtempSync(join(tmpdir(), 'fleet-sandbox-workerd-'))
  const {
    script,
    persist: _p,
    output,
    log,
    port,
    host: _h,
    beforeListen: _b,
    inspectorPort,
    scenarioFiles,
    scenarioTimeoutMs,
    scenarioDefinitions: _d,
    ...sandbox
  } = options
  const others = new Set(workerdChildren())
  // Only this process's front may batch requests (src/engines/workerd/core/batch.ts).
  const batchKey = randomUUID()
  let own = scenarioFiles?.length ? await workerWithScenarios(script, scenarioFiles, scenarioTimeoutMs) : undefined
  // The Worker's own socket: the same port when --watch restarts workerd, so the front keeps its target.
  let directPort = 0
  const config = (): MiniflareOptions => ({
    modules: true,
    scriptPath: own?.script ?? script,
    // Module names are paths from here: the folder of the entry (src/own-scenarios/worker-modules.ts writes it in a temporary one).
    modulesRoot: dirname(own?.script ?? script),
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: ['nodejs_compat'],
    // Only the front (front.ts) listens where the user asked; workerd listens for it alone.
    host: '127.0.0.1',
    port: 0,
    // The front talks to the Worker on a socket of its own: miniflare's entry worker (which
    // rebuilds every request and answer) is left out of the way (docs/engines.md, bench/workerd.mjs).
    unsafeDirectSockets: [{ host: '127.0.0.1', port: directPort }],
    durableObjects: {
      SANDBOX: { className: 'SandboxObject', useSQLite: true },
      SANDBOX_DIRECTORY: { className: 'SandboxDirectory', useSQLite: true },
    },
    durableObjectsPersist: persist,
    inspectorPort,
    // No placeholder download of Cloudflare's request metadata: nothing leaves the machine.
    cf: false,
    // The upstream sees the caller's request: no `cf-worker` header added on the way out (the
    // object drops the front's `cf-connecting-ip` itself, object.ts).
    stripCfConnectingIp: false,
    bindings: {
      SANDBOX_OPTIONS: JSON.stringify({ ...sandbox, logRequests: Boolean(log) }),
      SANDBOX_FRONT_KEY: batchKey,
    },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      // The app's log lines (requests, evictions) go to `log`, as the Node engine's do.
      createInterface({ input: stdout }).on('line', (line) =>
        line.startsWith(LOG_MARK) ? log?.(line.slice(LOG_MARK.length)) : output?.(`${line}\n`),
      )
      stderr.on('data', (chunk: Buffer) => output?.(chunk.toString()))
    },
  })
  // A terminal's Ctrl-C reaches the whole process group: workerd waits for the clean stop.
  shieldFromGroupSignals()
  const mf: Miniflare = new Miniflare(config())
  // SIGKILL of this process runs no handler: the watchdog stops workerd then.
  const runtime: number[] = []
  let front: Front
  // miniflare's stubs die with the runtime they came from: taken again after a restart (--watch).
  let namespaces: { sandbox: ObjectNamespace; directory: ObjectNamespace }
  const bind = async () => {
    namespaces = {
      sandbox: (await mf.getDurableObjectNamespace('SANDBOX')) as unknown as ObjectNamespace,
      directory: (await mf.getDurableObjectNamespace('SANDBOX_DIRECTORY')) as unknown as ObjectNamespace,
    }
  }
  const objectOf = (id: string) => namespaces.sandbox.get(namespaces.sandbox.idFromName(id))
  const call: RunningWorkerd['call'] = (name, ...args) => callObject(objectOf('default'), name, ...args)
  const callText: RunningWorkerd['callText'] = (name, ...args) => callObjectText(objectOf('default'), name, ...args)
  const eachObject = async (method: string, args: (id: string) => unknown[] = () => []) => {
    const listed = await callObject<{ id: string }[]>(
      namespaces.directory.get(namespaces.directory.idFromName('directory')),
      'list',
    )
    await Promise.all(
      ['default', ...listed.map((s) => s.id)].map((id) => callObject(objectOf(id), method, ...args(id))),
    )
  }
  // What waits for the objects' batches (the journal's last second) is stored before a clean stop.
  const flushAll = () => eachObject('flush')
  try {
    await mf.ready
    const target = await mf.unsafeGetDirectURL()
    directPort = Number(target.port)
    runtime.push(...workerdChildren().filter((pid) => !others.has(pid)))
    runtime.forEach(guard)
    await bind()
    // Seeds the default sandbox before the port opens, as the Node server does.
    await call('banner')
    await options.beforeListen?.(call)
    // A caller gone while an upstream body is silent: workerd does not notice, the object is told.
    const leave = sandbox.upstream
      ? (id: string, number: string) => void callObject(objectOf(id), 'leave', number).catch(() => undefined)
      : undefined
    front = await startFront({ host, port: port ?? 4010, target, batchKey, leave })
  } catch (error) {
    // A port in use or refused is the listen's error (EADDRINUSE, EACCES), as on the Node engine.
    await mf.dispose().catch(() => undefined)
    runtime.forEach(release)
    own?.remove()
    if (!options.persist) rmSync(persist, { recursive: true, force: true })
    throw error
  }
  // --watch on workerd: the objects are in storage, so a restart of workerd loses nothing once they are stored.
  const restart = (before?: () => Promise<void>) =>
    front.hold(async () => {
      await before?.()
      await flushAll()
      await mf.setOptions(config())
      await bind()
      for (const pid of workerdChildren())
        if (!others.has(pid) && !runtime.includes(pid)) (runtime.push(pid), guard(pid))
    })
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${front.port}`,
    port: front.port,
    call,
    callText,
    batches: front.batches!,
    async replaceFixtures(rows) {
      // Worlds alive take the rows now (stored whole); worlds made later read them from the options.
      await restart(async () => {
        await eachObject('replaceFixtures', (id) => [id, rows])
        sandbox.fixtures = { ...sandbox.fixtures, ...rows }
      })
    },
    async reloadScenarios(files) {
      const next = await workerWithScenarios(script, files, scenarioTimeoutMs)
      const old = own
      own = next
      try {
        await restart()
      } finally {
        old?.remove()
      }
    },
    async close() {
      await front.close()
      await flushAll().catch((error) =>
        output?.(`fleet-sandbox: storing the sandboxes before the stop failed: ${(error as Error).message}\n`),
      )
      await mf.dispose()
      runtime.forEach(release)
      own?.remove()
      if (!options.persist) rmSync(persist, { recursive: true, force: true })
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
