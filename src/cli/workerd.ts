import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Readable } from 'node:stream'
import type { Miniflare } from 'miniflare'
import { isLoopback, type ServerOptions } from '../adapters/server/index.js'
import { INTERNAL_HEADER, LOG_MARK, type ObjectNamespace } from '../adapters/worker/env.js'

export interface WorkerdOptions extends ServerOptions {
  /** The bundled Worker (`dist/worker.mjs`, scripts/build-worker.mjs). */
  script: string
  /** Folder of the Durable Objects' storage; kept across starts. Default: a fresh temporary one, removed on close. */
  persist?: string
  /** workerd's other output (errors, warnings); default: discard it. */
  output?: (text: string) => void
}

export interface RunningWorkerd {
  url: string
  port: number
  /** A call to the default sandbox's object that skips the Worker (banner, --state, --fixtures). */
  call<T>(path: string, body?: unknown): Promise<T>
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
  if (!isLoopback(host) && options.control !== false && !options.control?.token) {
    throw new Error(`--host ${host} is not loopback: the control API needs --control-token T, or turn it off with --no-control`)
  }
  const { Miniflare } = await loadMiniflare()
  if (options.port) await portFree(host, options.port)
  const persist = options.persist ?? mkdtempSync(join(tmpdir(), 'fleet-sandbox-workerd-'))
  const { script, persist: _p, output, log, port, host: _h, ...sandbox } = options
  const mf: Miniflare = new Miniflare({
    modules: true,
    scriptPath: script,
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: ['nodejs_compat'],
    host,
    port: port ?? 4010,
    durableObjects: {
      SANDBOX: { className: 'SandboxObject', useSQLite: true },
      SANDBOX_DIRECTORY: { className: 'SandboxDirectory', useSQLite: true },
    },
    durableObjectsPersist: persist,
    // No placeholder download of Cloudflare's request metadata: nothing leaves the machine.
    cf: false,
    bindings: { SANDBOX_OPTIONS: JSON.stringify({ ...sandbox, logRequests: Boolean(log) }) },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      // The app's log lines (requests, evictions) go to `log`, as the Node engine's do.
      createInterface({ input: stdout }).on('line', (line) => (line.startsWith(LOG_MARK) ? log?.(line.slice(LOG_MARK.length)) : output?.(`${line}\n`)))
      stderr.on('data', (chunk: Buffer) => output?.(chunk.toString()))
    },
  })
  let url: URL
  try {
    url = await mf.ready
  } catch (error) {
    await mf.dispose().catch(() => undefined)
    if (!options.persist) rmSync(persist, { recursive: true, force: true })
    if (/address.*in use|EADDRINUSE/i.test(String((error as Error).message))) throw new Error(`--port ${port}: the port is in use; pick another or --port 0`)
    throw error
  }
  const namespace = (await mf.getDurableObjectNamespace('SANDBOX')) as unknown as ObjectNamespace
  const object = namespace.get(namespace.idFromName('default'))
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await object.fetch(`https://sandbox.internal${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { [INTERNAL_HEADER]: '1' }, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await res.text()
    if (!res.ok) throw new Error(text)
    return JSON.parse(text) as T
  }
  // Seeds the default sandbox before the first request, as the Node server does.
  await call('/banner')
  const shown = host.includes(':') ? `[${host}]` : host
  const origin = `http://${shown}:${url.port}`
  return {
    url: origin,
    port: Number(url.port),
    call,
    async close() {
      await mf.dispose()
      if (!options.persist) rmSync(persist, { recursive: true, force: true })
    },
  }
}

/** workerd reports a port in use as a fatal crash with a stack: ask first, as the Node engine words it. */
function portFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new Error(`--port ${port}: the port is in use; pick another or --port 0`) : error))
    probe.listen(port, host, () => probe.close(() => resolve()))
  })
}

interface Banner {
  seed: number
  now: string
  notifications: number
  scenarios: string[]
}

/** `fleet-sandbox --engine workerd`: the Node command's banner, --state and --fixtures, and a clean stop. */
export async function runWorkerd(options: ServerOptions & { state?: string; persist?: string; engine?: string }, quiet: boolean, accounts: { password: string; emails: string[]; apiToken: string }): Promise<void> {
  // --fixtures rows travel in the options: every object shapes its world with them, as on Node.
  const { state: _s, engine: _e, ...served } = options
  // Beside the bundled command line (dist/fleet-sandbox.mjs), as scripts/build-worker.mjs writes it.
  const script = fileURLToPath(new URL('./worker.mjs', import.meta.url))
  const log = quiet ? undefined : (line: string) => console.log(`${new Date().toISOString().slice(11, 23)} ${line}`)
  const server = await startWorkerd({ ...served, script, log, output: (text) => process.stderr.write(text) })
  if (options.state && existsSync(options.state)) await server.call('/restore', JSON.parse(readFileSync(options.state, 'utf8')))
  // Even quiet, the URL: with --port 0 nothing else tells a script the port.
  if (quiet) console.log(`fleet-sandbox listening on ${server.url} (workerd)`)
  else {
    const b = await server.call<Banner>('/banner')
    console.log([
      `fleet-sandbox listening on ${server.url} (workerd)`,
      `  seed ${b.seed}, clock ${b.now}, ${b.notifications} notifications${options.strict ? ', strict' : ''}`,
      `  scenarios: ${b.scenarios.join(', ') || 'none (healthy)'}`,
      `  control API: ${options.control === false ? 'off' : `${server.url}/__sandbox${options.control?.token ? ' (token required)' : ''}`}`,
      `  demo accounts (password "${accounts.password}"): ${accounts.emails.join(', ')}`,
      `  API token: ${accounts.apiToken}`,
    ].join('\n'))
  }
  let closing = false
  const stop = async (signal: string) => {
    if (closing) return
    closing = true
    if (options.state) {
      const tmp = `${options.state}.tmp`
      writeFileSync(tmp, JSON.stringify(await server.call('/snapshot')))
      renameSync(tmp, options.state)
    }
    await server.close()
    if (!quiet) console.log(`fleet-sandbox stopped (${signal})`)
    process.exit(0)
  }
  // Miniflare's own handlers exit at once (code 130); this process stops the way the Node engine does.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) process.off(signal, listener)
    process.on(signal, () => void stop(signal)) // a repeated signal must not end the save half-way
  }
}
