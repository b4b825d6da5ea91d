import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { Miniflare } from 'miniflare'
import { isLoopback, type ServerOptions } from '../adapters/server/index.js'
import { INTERNAL_HEADER, type ObjectNamespace } from '../adapters/worker/env.js'

export interface WorkerdOptions extends ServerOptions {
  /** The bundled Worker (`dist/worker.mjs`, scripts/build-worker.mjs). */
  script: string
  /** Folder of the Durable Objects' storage; kept across starts. Default: a fresh temporary one, removed on close. */
  persist?: string
  /** Print workerd's output (the request log) here; default: discard it. */
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
    bindings: { SANDBOX_OPTIONS: JSON.stringify({ ...sandbox, logRequests: Boolean(log) }) },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.on('data', (chunk: Buffer) => output?.(chunk.toString()))
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

interface Banner {
  seed: number
  now: string
  notifications: number
  scenarios: string[]
}

/** `fleet-sandbox --engine workerd`: the Node command's banner, --state and --fixtures, and a clean stop. */
export async function runWorkerd(options: ServerOptions & { state?: string; fixtures?: string; persist?: string }, quiet: boolean, accounts: { password: string; emails: string[]; apiToken: string }): Promise<void> {
  const script = new URL('./worker.mjs', import.meta.url)
  const server = await startWorkerd({ ...options, script: script.pathname, log: quiet ? undefined : () => {}, output: quiet ? undefined : (text) => process.stdout.write(text) })
  if (options.fixtures) await loadFixtures(server, options.fixtures)
  if (options.state && existsSync(options.state)) await server.call('/restore', JSON.parse(readFileSync(options.state, 'utf8')))
  if (!quiet) {
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
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}

async function loadFixtures(server: RunningWorkerd, dir: string): Promise<void> {
  const snapshot = await server.call<Record<string, unknown>>('/snapshot')
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const name = file.replace(/\.json$/, '')
    if (!(name in snapshot) || !Array.isArray(snapshot[name])) throw new Error(`--fixtures: ${file} names no collection; collections: ${Object.keys(snapshot).filter((k) => Array.isArray(snapshot[k])).join(', ')}`)
    snapshot[name] = JSON.parse(readFileSync(join(dir, file), 'utf8'))
  }
  await server.call('/restore', snapshot)
}
