import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Readable } from 'node:stream'
import type { Miniflare } from 'miniflare'
import type { ServerOptions } from '../../adapters/server/index.js'
import { checkControlExposure } from '../../core/control/origin.js'
import type { SandboxSummary } from '../../core/sandbox/summary.js'
import type { StartEngine } from '../../cli/serve/engine.js'
import { LOG_MARK, type ObjectNamespace, call as callObject } from '../worker/env.js'
import { type Front, startFront } from './front.js'
import { guard, release, workerdChildren } from './watchdog.js'

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
}

export interface RunningWorkerd {
  url: string
  port: number
  /** A call to the default sandbox's object that skips the Worker (banner, --state, --fixtures). */
  call<T>(name: string, ...args: unknown[]): Promise<T>
  /** Batches the front sent, the requests in them, and those sent back to go alone (src/workerd/front/batcher.ts). */
  batches: { batches: number; requests: number; rerouted: number }
  close(): Promise<void>
}

export const MINIFLARE_HINT = '--engine workerd needs the miniflare package: npm install -D miniflare@4.20260426.0 (current releases need Node 22)'
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
  const { script, persist: _p, output, log, port, host: _h, beforeListen: _b, inspectorPort, ...sandbox } = options
  const others = new Set(workerdChildren())
  // Only this process's front may batch requests (src/workerd/core/batch.ts).
  const batchKey = randomUUID()
  const mf: Miniflare = new Miniflare({
    modules: true,
    scriptPath: script,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: ['nodejs_compat'],
    // Only the front (front.ts) listens where the user asked; workerd listens for it alone.
    host: '127.0.0.1',
    port: 0,
    // The front talks to the Worker on a socket of its own: miniflare's entry worker (which
    // rebuilds every request and answer) is left out of the way (docs/engines.md, bench/workerd.mjs).
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
    durableObjects: {
      SANDBOX: { className: 'SandboxObject', useSQLite: true },
      SANDBOX_DIRECTORY: { className: 'SandboxDirectory', useSQLite: true },
    },
    durableObjectsPersist: persist,
    inspectorPort,
    // No placeholder download of Cloudflare's request metadata: nothing leaves the machine.
    cf: false,
    bindings: { SANDBOX_OPTIONS: JSON.stringify({ ...sandbox, logRequests: Boolean(log) }), SANDBOX_FRONT_KEY: batchKey },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      // The app's log lines (requests, evictions) go to `log`, as the Node engine's do.
      createInterface({ input: stdout }).on('line', (line) => (line.startsWith(LOG_MARK) ? log?.(line.slice(LOG_MARK.length)) : output?.(`${line}\n`)))
      stderr.on('data', (chunk: Buffer) => output?.(chunk.toString()))
    },
  })
  // SIGKILL of this process runs no handler: the watchdog stops workerd then.
  const runtime: number[] = []
  let front: Front
  let call: RunningWorkerd['call']
  let flushAll: () => Promise<void>
  try {
    await mf.ready
    const target = await mf.unsafeGetDirectURL()
    runtime.push(...workerdChildren().filter((pid) => !others.has(pid)))
    runtime.forEach(guard)
    const namespace = (await mf.getDurableObjectNamespace('SANDBOX')) as unknown as ObjectNamespace
    const object = namespace.get(namespace.idFromName('default'))
    call = (name, ...args) => callObject(object, name, ...args)
    const directory = (await mf.getDurableObjectNamespace('SANDBOX_DIRECTORY')) as unknown as ObjectNamespace
    // What waits for the objects' batches (the journal's last second) is stored before a clean stop.
    flushAll = async () => {
      const listed = await callObject<{ id: string }[]>(directory.get(directory.idFromName('directory')), 'list')
      await Promise.all(['default', ...listed.map((s) => s.id)].map((id) => callObject(namespace.get(namespace.idFromName(id)), 'flush')))
    }
    // Seeds the default sandbox before the port opens, as the Node server does.
    await call('banner')
    await options.beforeListen?.(call)
    front = await startFront({ host, port: port ?? 4010, target, batchKey })
  } catch (error) {
    // A port in use or refused is the listen's error (EADDRINUSE, EACCES), as on the Node engine.
    await mf.dispose().catch(() => undefined)
    runtime.forEach(release)
    if (!options.persist) rmSync(persist, { recursive: true, force: true })
    throw error
  }
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${front.port}`,
    port: front.port,
    call: call!,
    batches: front.batches!,
    async close() {
      await front.close()
      await flushAll().catch((error) => output?.(`fleet-sandbox: storing the sandboxes before the stop failed: ${(error as Error).message}\n`))
      await mf.dispose()
      runtime.forEach(release)
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
  const server = await startWorkerd({
    ...options, script,
    output: (text) => process.stderr.write(text),
    beforeListen: (call) => beforeListen({ restore: (state) => call('restore', state) }),
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
    close: server.close,
  }
}
