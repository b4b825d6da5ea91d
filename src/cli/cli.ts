import { parseArgs } from 'node:util'
import v8 from 'node:v8'
import * as fixtures from '../../fixtures/accounts.js'
import { bundledScenarios } from '../sandbox-app.js'
import { signInLines } from '../core/auth/demo-accounts.js'
import type { Sandbox } from '../core/sandbox/sandbox.js'
import type { Size } from '../core/seed/seed.js'
import { startServer, type ServerOptions } from '../adapters/server/index.js'
import { readFixturesDir } from './fixtures-dir.js'
import { packageRoot } from './package-root.js'
import { StateFile } from './state-file.js'
import { bridgeFlags, upstreamFromFlags } from './bridge-flags.js'

/** Every flag, its environment variable and what it does: `--help` prints this table. */
const flags = {
  port: { type: 'string', short: 'p', env: 'PORT', help: 'port to listen on (default 4010; 0 picks a free one)' },
  host: { type: 'string', env: 'HOST', help: 'address to bind (default 127.0.0.1)' },
  seed: { type: 'string', env: 'SANDBOX_SEED', help: 'seed of the generated data (default 1)' },
  now: { type: 'string', env: 'SANDBOX_NOW', help: 'ISO date-time the clock starts at (default: the real time)' },
  scenario: { type: 'string', env: 'SANDBOX_SCENARIO', help: 'scenarios active at start: NAME[;OPTION=VALUE...][,NAME...], e.g. \'rate-limited;failures=1,slow;ms=300\'' },
  size: { type: 'string', env: 'SANDBOX_SIZE', help: 'small | medium | large: 100, 2,000 or 100,000 notifications for the demo client, at most 2,000 for the second (default medium)' },
  notifications: { type: 'string', env: 'SANDBOX_NOTIFICATIONS', help: 'exact number of notifications of the demo client, at most 2,000 for the second (instead of --size)' },
  fixtures: { type: 'string', env: 'SANDBOX_FIXTURES', help: 'folder of <collection>.json files that replace seeded collections in every world (docs/fixtures.md)' },
  state: { type: 'string', env: 'SANDBOX_STATE', help: 'file the state is restored from before listening and saved to (atomically) on exit' },
  strict: { type: 'boolean', env: 'SANDBOX_STRICT', help: 'serve only what the spec documents (assumed routes answer 404)' },
  'control-token': { type: 'string', env: 'SANDBOX_CONTROL_TOKEN', help: 'token the control API requires (x-sandbox-control-token)' },
  'no-control': { type: 'boolean', env: 'SANDBOX_NO_CONTROL', help: 'turn the /__sandbox control API off' },
  quiet: { type: 'boolean', env: 'SANDBOX_QUIET', help: 'no request log, and of the banner only the "listening on URL" line' },
  'sandbox-idle': { type: 'string', env: 'SANDBOX_IDLE_SECONDS', help: 'drop an isolated (x-sandbox-id) sandbox unused this many seconds (default 1800)' },
  'cors-origin': { type: 'string', multiple: true, env: 'SANDBOX_CORS_ORIGIN', help: 'origin (besides loopback) whose pages may call /__sandbox; repeat it, or list them comma-separated' },
  'max-sandboxes': { type: 'string', env: 'SANDBOX_MAX_SANDBOXES', help: 'at most this many isolated sandboxes (default 200); a new x-sandbox-id past it evicts the least recently used one with its state (logged, listed in GET /__sandbox/sandboxes)' },
  engine: { type: 'string', env: 'SANDBOX_ENGINE', help: 'node | workerd: the Hono server (default), or workerd through miniflare, a Durable Object per sandbox id (docs/engines.md)' },
  persist: { type: 'string', env: 'SANDBOX_PERSIST', help: 'workerd: folder keeping every sandbox across restarts (default: a fresh temporary one)' },
  ...bridgeFlags,
  help: { type: 'boolean', short: 'h', env: '', help: 'show this help' },
  version: { type: 'boolean', env: '', help: 'print the version' },
} as const satisfies Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean; env: string; help: string }>

type Flag = keyof typeof flags
const short = (f: (typeof flags)[Flag]) => ('short' in f ? f.short : undefined)

export function usage(): string {
  const rows = Object.entries(flags).map(([name, f]) => `  ${short(f) ? `-${short(f)}, ` : '    '}--${name.padEnd(15)} ${f.env.padEnd(22)} ${f.help}`)
  return [
    'fleet-sandbox: the Fleet Operations Backoffice API, stateful, on your machine',
    '',
    'Usage: fleet-sandbox [flags]            start the HTTP server',
    '       fleet-sandbox init <dir>         write the service worker script for the browser (init --help)',
    '       fleet-sandbox drift --upstream URL --upstream-token T [--json] [--out FILE]',
    '                                        check a real backend against the sandbox (exit 0 none, 1 drift, 2 cannot run)',
    '       fleet-sandbox record (--upstream URL --upstream-token T | --har FILE) --out DIR [--redact-emails]',
    '                                        record a real backend\'s records as a --fixtures folder',
    '',
    '      flag              environment            meaning',
    ...rows,
  ].join('\n')
}

function fail(message: string): never {
  throw new Error(`${message}\n(fleet-sandbox --help lists every flag)`)
}

/** `--prot` -> `--port`: the flag within two edits (or the one it starts), if any. */
function suggest(given: string): string | undefined {
  const bare = given.replace(/^-+/, '').split('=')[0]
  const names = Object.keys(flags)
  return names.find((n) => n.startsWith(bare) && bare.length >= 2) ?? names.map((n) => [n, distance(bare, n)] as const).filter(([, d]) => d <= 2).sort((a, b) => a[1] - b[1])[0]?.[0]
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]
}

function unknownFlag(error: Error & { code?: string }): never {
  const given = /'([^']+)'/.exec(error.message)?.[1]
  if (error.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || !given) return fail(error.message)
  const near = suggest(given)
  return fail(`unknown flag ${given}${near ? `; did you mean --${near}?` : ''}`)
}

function int(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name}: must be an integer from ${min} to ${max}, got "${value}"`)
  return n
}

/** Flags win over environment variables; both are validated before anything starts. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): { options: ServerOptions & { state?: string; fixturesDir?: string; engine: 'node' | 'workerd'; persist?: string }; quiet: boolean; help: boolean; version: boolean } {
  const { values } = (() => {
    try {
      return parseArgs({ args: argv, options: Object.fromEntries(Object.entries(flags).map(([k, f]) => [k, { type: f.type, multiple: 'multiple' in f, ...(short(f) ? { short: short(f) } : {}) }])) as never, strict: true, allowPositionals: false })
    } catch (error) {
      return unknownFlag(error as Error)
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
  const engine = get('engine') ?? 'node'
  if (engine !== 'node' && engine !== 'workerd') fail(`--engine: must be node or workerd, got "${engine}"`)
  if (get('persist') && engine !== 'workerd') fail('--persist: only with --engine workerd')
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
    version: bool('version'),
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
      fixturesDir: get('fixtures'),
      corsOrigins: corsOrigins(get('cors-origin')),
      engine,
      persist: get('persist'),
      upstream: upstreamFromFlags(get, fail),
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

/**
 * The sandbox runs beside a browser and an IDE: V8 may let the heap grow to 1.5× what is live
 * before it collects, not the 4× it allows a server by default (313 MB RSS at 100k after the
 * varied load, against 215 MB, for about 3% more CPU; BENCHMARKS.md). A `--heap-growing-percent`
 * given to node wins.
 */
function boundHeapGrowth(): void {
  if (!process.execArgv.some((a) => a.includes('heap-growing-percent'))) v8.setFlagsFromString('--heap-growing-percent=50')
}

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'init') {
    const { init } = await import('./init.js')
    return init(argv.slice(1))
  }
  if (argv[0] === 'record') {
    const { record } = await import('./record.js')
    return record(argv.slice(1))
  }
  if (argv[0] === 'drift') {
    const { drift } = await import('./drift.js')
    return drift(argv.slice(1))
  }
  const { options: { state: statePath, fixturesDir, ...options }, quiet, help, version } = parseOptions(argv)
  if (help) return void console.log(usage())
  if (version) return void console.log(packageVersion())
  if (options.engine === 'workerd') {
    const { runWorkerd } = await import('./workerd.js')
    return runWorkerd({ ...options, state: statePath, fixtures: fixturesDir ? readFixturesDir(fixturesDir) : undefined }, quiet, { password: fixtures.DEMO_PASSWORD, emails: fixtures.users.map((u) => u.email), apiToken: fixtures.apiTokens[0].token })
  }
  boundHeapGrowth()
  const say = quiet ? () => undefined : (line: string) => console.log(line)
  const log = quiet ? undefined : (line: string) => console.log(`${new Date().toISOString().slice(11, 23)} ${line}`)
  // Everything that can be refused is checked before the server starts.
  const fixtureRows = fixturesDir ? readFixturesDir(fixturesDir) : undefined
  const state = statePath ? new StateFile(statePath) : undefined
  const saved = state?.read()
  let sandbox!: Sandbox
  const server = await startServer({
    ...options, fixtures: fixtureRows, log,
    // Fixtures and the saved state are in place before the port opens: nothing reads seeded data.
    async beforeListen(app) {
      sandbox = await app.ready()
      if (state && saved !== undefined) {
        await state.restore(sandbox, saved)
        say(`restored from ${state.path}`)
      }
    },
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new Error(`--port ${options.port}: the port is in use on ${options.host} (another fleet-sandbox?); stop it, pick another port, or pass --port 0 for a free one`)
    if (error.code === 'EACCES') throw new Error(`--port ${options.port}: this user may not listen on it; pick a port above 1023, or --port 0 for a free one`)
    throw error
  })
  // Even quiet, the URL: with --port 0 nothing else tells a script (or Playwright's webServer) the port.
  console.log(quiet ? listening(server.url) : banner(server.url, sandbox, options))
  let closing = false
  const stop = async (signal: string) => {
    if (closing) return
    closing = true
    let code = 0
    if (state) {
      try {
        state.save(sandbox)
        say(`saved to ${state.path}`)
      } catch (error) {
        console.error(`--state ${state.given}: the state could not be saved (${(error as Error).message}); the previous file is unchanged`)
        code = 1
      }
    }
    await server.close()
    say(`fleet-sandbox stopped (${signal})`)
    process.exit(code)
  }
  process.once('SIGINT', () => void stop('SIGINT'))
  process.once('SIGTERM', () => void stop('SIGTERM'))
}

function banner(url: string, sandbox: Sandbox, options: ServerOptions): string {
  const perClient = new Map<string, number>()
  for (const e of sandbox.world.notifications.entries()) perClient.set(e.clientId, (perClient.get(e.clientId) ?? 0) + 1)
  const counts = sandbox.world.tables.clients.all().map((c) => `${(perClient.get(c.id) ?? 0).toLocaleString('en-US')} for ${c.name}`).join(', ')
  return [
    listening(url),
    `  seed ${sandbox.seed}, clock ${sandbox.iso()}${options.strict ? ', strict' : ''}`,
    `  notifications: ${counts}`,
    `  scenarios: ${sandbox.active.map((a) => a.name).join(', ') || 'none (healthy)'}`,
    `  control API: ${options.control === false ? 'off' : `${url}/__sandbox${options.control?.token ? ' (token required)' : ''}`}`,
    // The URL only: the token is never printed.
    ...(options.upstream ? [`  upstream: ${options.upstream.url} (unmatched /api/... requests${options.upstream.routes ? ` and ${options.upstream.routes.join(', ')}` : ''}; findings at ${url}/__sandbox/drift)`] : []),
    ...signInLines(sandbox.world),
  ].join('\n')
}

const listening = (url: string) => `fleet-sandbox listening on ${url}`

/** The version in the package's own package.json. */
function packageVersion(): string {
  return packageRoot()?.version ?? 'unknown'
}
