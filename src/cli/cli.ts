import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import * as fixtures from '../../fixtures/accounts.js'
import { bundledScenarios } from '../sandbox-app.js'
import type { Size } from '../core/seed/seed.js'
import { startServer, type ServerOptions } from '../adapters/server/index.js'

/** Every flag, its environment variable and what it does: `--help` prints this table. */
const flags = {
  port: { type: 'string', env: 'PORT', help: 'port to listen on (default 4010; 0 picks a free one)' },
  host: { type: 'string', env: 'HOST', help: 'address to bind (default 127.0.0.1)' },
  seed: { type: 'string', env: 'SANDBOX_SEED', help: 'seed of the generated data (default 1)' },
  now: { type: 'string', env: 'SANDBOX_NOW', help: 'ISO date-time the clock starts at (default: the real time)' },
  scenario: { type: 'string', env: 'SANDBOX_SCENARIO', help: 'scenarios active at start: NAME[,NAME]' },
  size: { type: 'string', env: 'SANDBOX_SIZE', help: 'small | medium | large: 100, 2,000 or 100,000 notifications (default medium)' },
  notifications: { type: 'string', env: 'SANDBOX_NOTIFICATIONS', help: 'exact number of notifications of the demo client (instead of --size)' },
  fixtures: { type: 'string', env: 'SANDBOX_FIXTURES', help: 'folder of <collection>.json files that replace seeded collections' },
  state: { type: 'string', env: 'SANDBOX_STATE', help: 'file to restore the state from at start and save it to on exit' },
  strict: { type: 'boolean', env: 'SANDBOX_STRICT', help: 'serve only what the spec documents (assumed routes answer 404)' },
  'control-token': { type: 'string', env: 'SANDBOX_CONTROL_TOKEN', help: 'token the control API requires (x-sandbox-control-token)' },
  'no-control': { type: 'boolean', env: 'SANDBOX_NO_CONTROL', help: 'turn the /__sandbox control API off' },
  quiet: { type: 'boolean', env: 'SANDBOX_QUIET', help: 'no banner and no request log' },
  'sandbox-idle': { type: 'string', env: 'SANDBOX_IDLE_SECONDS', help: 'drop an isolated (x-sandbox-id) sandbox unused this many seconds (default 1800)' },
  'cors-origin': { type: 'string', multiple: true, env: 'SANDBOX_CORS_ORIGIN', help: 'origin (besides loopback) whose pages may call /__sandbox; repeat it, or list them comma-separated' },
  'max-sandboxes': { type: 'string', env: 'SANDBOX_MAX_SANDBOXES', help: 'at most this many isolated sandboxes (default 200); a new x-sandbox-id past it evicts the least recently used one with its state (logged, listed in GET /__sandbox/sandboxes)' },
  help: { type: 'boolean', env: '', help: 'show this help' },
} as const

type Flag = keyof typeof flags

export function usage(): string {
  const rows = Object.entries(flags).map(([name, f]) => `  --${name.padEnd(15)} ${f.env.padEnd(22)} ${f.help}`)
  return [
    'fleet-sandbox: the Fleet Operations Backoffice API, stateful, on your machine',
    '',
    'Usage: fleet-sandbox [flags]            start the HTTP server',
    '       fleet-sandbox init <publicDir>   write the service worker script for the browser',
    '',
    '  flag              environment            meaning',
    ...rows,
  ].join('\n')
}

function fail(message: string): never {
  throw new Error(`${message}\n\n${usage()}`)
}

function int(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name}: must be an integer from ${min} to ${max}, got "${value}"`)
  return n
}

/** Flags win over environment variables; both are validated before anything starts. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): { options: ServerOptions & { state?: string; fixtures?: string }; quiet: boolean; help: boolean } {
  const { values } = (() => {
    try {
      return parseArgs({ args: argv, options: Object.fromEntries(Object.entries(flags).map(([k, f]) => [k, { type: f.type, multiple: 'multiple' in f }])) as never, strict: true, allowPositionals: false })
    } catch (error) {
      return fail((error as Error).message)
    }
  })()
  const get = (name: Flag): string | undefined => {
    const v = (values as Record<string, string | boolean | undefined>)[name]
    if (v !== undefined) return String(v)
    const e = flags[name].env
    return e && env[e] !== undefined && env[e] !== '' ? env[e] : undefined
  }
  const bool = (name: Flag) => ['true', '1', 'yes'].includes(get(name) ?? '')
  const size = get('size')
  if (size && !['small', 'medium', 'large'].includes(size)) fail(`--size: must be small, medium or large, got "${size}"`)
  const notifications = int('notifications', get('notifications'), 0, 1_000_000)
  if (size && notifications !== undefined) fail('--size and --notifications: give one or the other')
  const now = get('now')
  if (now && Number.isNaN(Date.parse(now))) fail(`--now: must be an ISO 8601 date-time, got "${now}"`)
  const token = get('control-token')
  if (token && bool('no-control')) fail('--control-token and --no-control: give one or the other')
  let scenarios
  try {
    scenarios = bundledScenarios.parseList(get('scenario') ?? '', '--scenario')
  } catch (error) {
    fail((error as Error).message)
  }
  return {
    help: bool('help'),
    quiet: bool('quiet'),
    options: {
      port: int('port', get('port'), 0, 65535) ?? 4010,
      host: get('host') ?? '127.0.0.1',
      seed: int('seed', get('seed'), 0, 2 ** 31 - 1) ?? 1,
      now: now ? new Date(now).toISOString() : undefined,
      size: size as Size | undefined,
      notifications,
      scenarios,
      strict: bool('strict'),
      control: bool('no-control') ? false : token ? { token } : {},
      state: get('state'),
      sandboxIdleMs: (int('sandbox-idle', get('sandbox-idle'), 1, 31_536_000) ?? 1800) * 1000,
      maxSandboxes: int('max-sandboxes', get('max-sandboxes'), 1, 100_000) ?? 200,
      fixtures: get('fixtures'),
      corsOrigins: corsOrigins(get('cors-origin')),
    },
  }
}

/** `--cors-origin` values (a repeated flag reads as one comma-separated list), each an exact origin. */
function corsOrigins(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return value.split(',').map((o) => o.trim()).filter(Boolean).map((o) => {
    let origin: string | undefined
    try {
      origin = new URL(o).origin
    } catch { /* reported below */ }
    if (origin !== o) fail(`--cors-origin: must be an origin such as https://app.example.com:8443 (scheme, host, optional port), got "${o}"`)
    return o
  })
}

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'init') {
    const { init } = await import('./init.js')
    return init(argv.slice(1))
  }
  const { options, quiet, help } = parseOptions(argv)
  if (help) return void console.log(usage())
  const log = quiet ? undefined : (line: string) => console.log(`${new Date().toISOString().slice(11, 23)} ${line}`)
  const server = await startServer({ ...options, log })
  const sandbox = await server.app.ready()
  if (options.fixtures) await loadFixtures(sandbox, options.fixtures)
  if (options.state && existsSync(options.state)) await sandbox.restore(JSON.parse(readFileSync(options.state, 'utf8')))
  if (!quiet) {
    console.log([
      `fleet-sandbox listening on ${server.url}`,
      `  seed ${sandbox.seed}, clock ${sandbox.iso()}, ${sandbox.world.notifications.size} notifications${options.strict ? ', strict' : ''}`,
      `  scenarios: ${sandbox.active.map((a) => a.name).join(', ') || 'none (healthy)'}`,
      `  control API: ${options.control === false ? 'off' : `${server.url}/__sandbox${options.control?.token ? ' (token required)' : ''}`}`,
      `  demo accounts (password "${fixtures.DEMO_PASSWORD}"): ${fixtures.users.map((u) => u.email).join(', ')}`,
      `  API token: ${fixtures.apiTokens[0].token}`,
    ].join('\n'))
  }
  let closing = false
  const stop = async (signal: string) => {
    if (closing) return
    closing = true
    if (options.state) writeFileSync(options.state, JSON.stringify(sandbox.snapshot()))
    await server.close()
    if (!quiet) console.log(`fleet-sandbox stopped (${signal})`)
    process.exit(0)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}

async function loadFixtures(sandbox: Awaited<ReturnType<Awaited<ReturnType<typeof startServer>>['app']['ready']>>, dir: string) {
  const { readdirSync } = await import('node:fs')
  const { join } = await import('node:path')
  const snapshot = sandbox.snapshot() as unknown as Record<string, unknown>
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const name = file.replace(/\.json$/, '')
    if (!(name in snapshot) || !Array.isArray(snapshot[name])) throw new Error(`--fixtures: ${file} names no collection; collections: ${Object.keys(snapshot).filter((k) => Array.isArray(snapshot[k])).join(', ')}`)
    snapshot[name] = JSON.parse(readFileSync(join(dir, file), 'utf8'))
  }
  await sandbox.restore(snapshot)
}
