import { parseArgs } from 'node:util'
import v8 from 'node:v8'
import { basename } from 'node:path'
import * as fixtures from '../../fixtures/accounts.js'
import { bundledScenarios } from '../apps/page-app.js'
import { ScenarioRegistry } from '../core/scenarios/registry.js'
import type { ScenarioDefinition } from '../core/scenarios/define.js'
import { loadScenarioFiles } from '../own-scenarios/files.js'
import { SCENARIO_TIMEOUT_MS, scenarioLimits } from '../own-scenarios/guard.js'
import { watchFolders } from './serve/watch.js'
import { Sandbox } from '../core/sandbox/sandbox.js'
import {
  type OptionDef,
  type OptionValues,
  appOptionsOf,
  optionRows,
  originList,
  readOptions,
} from '../core/options/options.js'
import type { ServerOptions } from '../adapters/server/index.js'
import { readFixturesDir } from './serve/fixtures-dir.js'
import { packageRoot } from './serve/package-root.js'
import { StateFile } from './state/state-file.js'
import { removeStaleSaves } from './state/state-leftovers.js'
import { keepState, seedNote } from './state/keep.js'
import { checkUpstream } from './commands/bridge-flags.js'
import type { StartEngine } from '../engines/engine.js'
import { startNodeEngine } from '../engines/node.js'
import type { SandboxSummary } from '../core/sandbox/summary.js'
import { stopWhenOrphaned } from './serve/orphan.js'

/** The command line's options (the core's schema, without the deployment's own). */
const flags = optionRows('cli')
type Flag = (typeof flags)[number]

export function usage(definitions: readonly ScenarioDefinition[] = bundledScenarios.list()): string {
  const shown = (f: Flag) => `${f.short ? `-${f.short}, ` : '    '}--${f.flag}${f.value ? ` ${f.value}` : ''}`
  const width = Math.max(...flags.map((f) => shown(f).length)) + 1
  const rows = flags.map(
    (f) =>
      `  ${shown(f).padEnd(width)} ${(f.env ?? '').padEnd(22)} ${f.help}${f.default ? ` (default ${f.default})` : ''}`,
  )
  return [
    'fleet-sandbox: the Fleet Operations Backoffice API, stateful, on your machine',
    '',
    'Usage: fleet-sandbox [flags]            start the HTTP server',
    '       fleet-sandbox init <dir>         write the service worker script for the browser (init --help)',
    '       fleet-sandbox drift --upstream URL --upstream-token T [--json] [--out FILE]',
    '                                        check a real backend against the sandbox (exit 0 none, 1 drift, 2 cannot run)',
    "       fleet-sandbox replay BUNDLE [--url URL]   rebuild a repro bundle's world (replay --help)",
    '       fleet-sandbox record (--upstream URL --upstream-token T | --har FILE) --out DIR [--redact-emails]',
    "                                        record a real backend's records as a --fixtures folder",
    '       fleet-sandbox pact --url URL --out DIR   write the Pact file and used OpenAPI of a running sandbox (pact --help)',
    "       fleet-sandbox conduct --url URL [--sandbox ID] [--fail-on findings|unmet]   the app's conduct, exit 1 on a finding (conduct --help)",
    '',
    `  ${'flag'.padEnd(width)} ${'environment'.padEnd(22)} meaning`,
    ...rows,
    '',
    `Scenarios (--scenario, x-sandbox-scenario; each takes routes=a|b): ${definitions.map((s) => s.name).join(', ')}`,
    'Operation ids (for routes= and overrides): docs/routes.md, or GET /__sandbox/openapi.json',
  ].join('\n')
}

function fail(message: string): never {
  throw new Error(`${message}\n(fleet-sandbox --help lists every flag)`)
}

/** `--prot` -> `--port`: the flag within two edits (or the one it starts), if any. */
function suggest(given: string): string | undefined {
  const bare = given.replace(/^-+/, '').split('=')[0]
  const names = flags.map((f) => f.flag)
  return (
    names.find((n) => n.startsWith(bare) && bare.length >= 2) ??
    names
      .map((n) => [n, distance(bare, n)] as const)
      .filter(([, d]) => d <= 2)
      .sort((a, b) => a[1] - b[1])[0]?.[0]
  )
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
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

/**
 * Flags win over environment variables; both are validated before anything starts. `values`
 * holds every option as the schema read it, for options only a subcommand or one engine uses.
 */
export function parseOptions(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): {
  options: ServerOptions & { state?: string; fixturesDir?: string; engine: 'node' | 'workerd'; persist?: string }
  values: OptionValues
  quiet: boolean
  help: boolean
  version: boolean
} {
  const { values: given } = (() => {
    try {
      const options = Object.fromEntries(
        flags.map((f) => [
          f.flag,
          { type: f.value ? 'string' : 'boolean', multiple: !!f.multiple, ...(f.short ? { short: f.short } : {}) },
        ]),
      )
      return parseArgs({ args: argv, options: options as never, strict: true, allowPositionals: false })
    } catch (error) {
      return unknownFlag(error as Error)
    }
  })()
  const text = (f: OptionDef) => {
    const v = (given as Record<string, string | boolean | string[] | undefined>)[f.flag]
    if (v !== undefined) return String(v)
    return f.env && env[f.env] !== undefined && env[f.env] !== '' ? env[f.env] : undefined
  }
  let values: OptionValues
  let shared: ReturnType<typeof appOptionsOf>
  try {
    values = readOptions(
      flags.map((f) => f.name),
      text,
      (f) => `--${f.flag}`,
    )
    // With --scenarios, --scenario is read once the files are loaded (they may name theirs).
    shared = appOptionsOf(
      values.scenarios ? { ...values, scenario: undefined } : values,
      bundledScenarios,
      '--scenario',
    )
  } catch (error) {
    fail((error as Error).message)
  }
  if (values.persist && values.engine !== 'workerd') fail('--persist: only with --engine workerd')
  return {
    values,
    help: !!values.help,
    version: !!values.version,
    quiet: !!values.quiet,
    options: {
      ...shared,
      port: values.port!,
      host: values.host!,
      state: values.state,
      fixturesDir: values.fixtures,
      corsOrigins: corsOrigins(values.corsOrigin),
      engine: values.engine!,
      persist: values.persist,
      upstream: checkUpstream(shared.upstream, values.upstreamToken, fail),
    },
  }
}

/** `--cors-origin`'s origins, refused with the command line's hint. */
function corsOrigins(value: string | undefined): string[] | undefined {
  try {
    return originList(value, '--cors-origin')
  } catch (error) {
    fail((error as Error).message)
  }
}

/**
 * The sandbox runs beside a browser and an IDE: V8 may let the heap grow by half of what is live
 * before it collects, not by the multiple it allows a server by default: less RSS at 100k after
 * the varied load for little more CPU (bench: `npm run bench -- --only varied,memory`;
 * docs/benchmarks-history.md). A `--heap-growing-percent` given to node wins.
 */
function boundHeapGrowth(): void {
  if (!process.execArgv.some((a) => a.includes('heap-growing-percent')))
    v8.setFlagsFromString('--heap-growing-percent=50')
}

/** The subcommands, each loaded on first use (what a run of the server never needs stays out of its bundle). */
const commands: Record<string, (args: string[]) => Promise<void>> = {
  replay: async (args) => (await import('./commands/replay.js')).replay(args, main),
  init: async (args) => (await import('./commands/init.js')).init(args),
  record: async (args) => (await import('./commands/record.js')).record(args),
  drift: async (args) => (await import('./commands/drift.js')).drift(args),
  pact: async (args) => (await import('./commands/pact.js')).pact(args),
  conduct: async (args) => (await import('./commands/conduct.js')).conduct(args),
}

/** `afterListen`: run once the server listens (`replay` sends its bundle); a failure stops the server. */
export async function main(
  argv: string[],
  afterListen?: (url: string, controlToken?: string) => Promise<void>,
): Promise<void> {
  const command = Object.hasOwn(commands, argv[0] ?? '') ? commands[argv[0]!] : undefined
  // `replay` starts a server itself, through this function with its afterListen.
  if (command && !(argv[0] === 'replay' && afterListen)) return command(argv.slice(1))
  const serve = await prepared(argv)
  if (!serve) return
  const server = await started(serve)
  // Before the banner: a signal sent as soon as it is read (a script, a test) finds the handlers.
  const stopping = stopOnSignals(server, serve.state, serve.say)
  await announced(server, serve)
  if (afterListen) {
    try {
      await afterListen(server.url, serve.options.control ? serve.options.control.token : undefined)
    } catch (error) {
      await server.close()
      throw error
    }
  }
  stopping.unwatch = watched(server, serve)
}

/** What serving was asked, checked before anything starts; none when the command only printed (--help, --version). */
async function prepared(argv: string[]) {
  const {
    options: { state: statePath, fixturesDir, engine, ...options },
    values,
    quiet,
    help,
    version,
  } = parseOptions(argv)
  scenarioLimits.timeoutMs = values.scenarioTimeout ?? SCENARIO_TIMEOUT_MS
  const own = values.scenarios ? await ownScenarios(values.scenarios, values.scenario) : undefined
  if (own) Object.assign(options, { scenarioDefinitions: own.scenarioDefinitions, scenarios: own.scenarios })
  if (values.watch && !fixturesDir && !values.scenarios)
    fail('--watch: give --fixtures DIR or --scenarios DIR to watch')
  if (help) return void console.log(usage(own?.scenarioDefinitions))
  if (version) return void console.log(packageVersion())
  if (engine === 'node') boundHeapGrowth()
  const say = quiet ? () => undefined : (line: string) => console.log(line)
  const log = quiet ? undefined : (line: string) => console.log(`${new Date().toISOString().slice(11, 23)} ${line}`)
  // Everything that can be refused is checked before the server starts.
  const fixtureRows = fixturesDir ? readFixturesDir(fixturesDir) : undefined
  const state = statePath ? new StateFile(statePath) : undefined
  const saved = state?.read()
  if (state) for (const name of removeStaleSaves(state.path)) say(`removed ${name}, left by a save that was cut short`)
  return { options, values, quiet, own, engine, fixturesDir, fixtureRows, state, saved, say, log }
}

type Serve = NonNullable<Awaited<ReturnType<typeof prepared>>>
type Server = Awaited<ReturnType<StartEngine>>

/** The engine started, with the fixtures and the saved state in place before its port opens; a port refused says why. */
async function started({ options, engine, fixtureRows, own, state, saved, say, log }: Serve): Promise<Server> {
  // Both engines go through the same banner, log, --state, port errors and stop (engine.ts).
  const start: StartEngine =
    engine === 'workerd' ? (await import('../engines/workerd/front/launch.js')).startWorkerdEngine : startNodeEngine
  return start({
    ...options,
    fixtures: fixtureRows,
    log,
    scenarioFiles: own?.files.map((f) => f.file),
    scenarioTimeoutMs: scenarioLimits.timeoutMs,
    // Nothing reads seeded data before this.
    async beforeListen(target) {
      if (state && saved !== undefined) {
        await state.restore(target, saved)
        say(`restored from ${state.path}`)
        const note = seedNote(state, saved, options.seed)
        if (note) console.error(note)
      }
      // The Node engine's sandbox is in this process: the port follows it, and the save on exit is synchronous.
      if (state && target instanceof Sandbox) await state.follow(target)
    },
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE')
      throw new Error(
        `--port ${options.port}: the port is in use on ${options.host} (another fleet-sandbox?); stop it, pick another port, or pass --port 0 for a free one`,
      )
    if (error.code === 'EACCES')
      throw new Error(
        `--port ${options.port}: this user may not listen on it; pick a port above 1023, or --port 0 for a free one`,
      )
    throw error
  })
}

/** The banner, or, quiet, the URL alone: with --port 0 nothing else tells a script (or Playwright's webServer) the port. */
async function announced(server: Server, { quiet, options, own, values }: Serve): Promise<void> {
  console.log(
    quiet
      ? listening(server.url)
      : banner(
          server.url,
          await server.summary(),
          options,
          server.engineLine,
          own && { dir: values.scenarios!, files: own.files },
        ),
  )
}

/** `--watch`: the fixtures and scenario folders reloaded on change; how to stop watching. */
function watched(server: Server, { values, fixturesDir, own, say }: Serve): (() => void) | undefined {
  if (!values.watch) return undefined
  const unwatch = watchFolders({
    fixturesDir,
    scenariosDir: values.scenarios,
    bundled: bundledScenarios.list().map((s) => s.name),
    scenarioFiles: new Map(own?.files.map((f) => [f.file, f.def.name])),
    ...server.reload,
    say,
    warn: (line) => console.error(line),
  })
  say(
    `  watching ${[fixturesDir && `--fixtures ${fixturesDir}`, values.scenarios && `--scenarios ${values.scenarios}`].filter(Boolean).join(' and ')} for changes`,
  )
  return unwatch
}

/** On a signal, or when the parent is gone: the state saved (--state), the server closed, the process ended. */
function stopOnSignals(
  server: Server,
  state: StateFile | undefined,
  say: (line: string) => void,
): { unwatch?: () => void } {
  const stopping: { unwatch?: () => void } = {}
  const keeping = state && keepState(state, server, (line) => console.error(line))
  let closing = false
  const stop = async (signal: string) => {
    if (closing) return
    closing = true
    let code = 0
    await keeping?.stop()
    if (state) {
      try {
        state.save(state.following ? undefined : await server.snapshot())
        say(`saved to ${state.path}`)
      } catch (error) {
        console.error(
          `--state ${state.given}: the state could not be saved (${(error as Error).message}); the previous file is unchanged`,
        )
        code = 1
      }
    }
    stopping.unwatch?.()
    await server.close()
    say(`fleet-sandbox stopped (${signal})`)
    process.exit(code)
  }
  // `on`, not `once`: with no listener left a second signal (a double Ctrl+C, a process
  // manager's repeat) would end the process with Node's default action in the middle of the save.
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
  // A closed terminal: saved and stopped as on SIGTERM, not killed with nothing written.
  process.on('SIGHUP', () => void stop('SIGHUP'))
  stopWhenOrphaned(() => void stop('SIGTERM'))
  return stopping
}

/** `--scenarios DIR`: your scenario files beside the bundled ones, and `--scenario` read with them. */
async function ownScenarios(
  dir: string,
  active: string | undefined,
): Promise<
  Pick<ServerOptions, 'scenarioDefinitions' | 'scenarios'> & { files: { file: string; def: ScenarioDefinition }[] }
> {
  const bundled = bundledScenarios.list()
  const files = await loadScenarioFiles(
    dir,
    bundled.map((s) => s.name),
  ).catch((error: Error) => fail(error.message))
  const scenarioDefinitions = [...bundled, ...files.map((f) => f.def)]
  try {
    return {
      scenarioDefinitions,
      scenarios: new ScenarioRegistry(scenarioDefinitions).parseList(active ?? '', '--scenario'),
      files,
    }
  } catch (error) {
    return fail((error as Error).message)
  }
}

/** `own`: the files of `--scenarios DIR`, so a team sees at start that theirs loaded and under which names. */
function banner(
  url: string,
  summary: SandboxSummary,
  options: ServerOptions,
  engineLine?: string,
  own?: { dir: string; files: { file: string; def: ScenarioDefinition }[] },
): string {
  const counts = summary.clients.map((c) => `${c.notifications.toLocaleString('en-US')} for ${c.name}`).join(', ')
  return [
    listening(url),
    ...(engineLine ? [engineLine] : []),
    `  seed ${summary.seed}, clock ${summary.now}${options.strict ? ', strict' : ''}`,
    `  notifications: ${counts}`,
    `  scenarios: ${summary.scenarios.join(', ') || 'none (healthy)'}`,
    ...(own
      ? [
          `  your scenarios (--scenarios ${own.dir}): ${own.files.map((f) => `${f.def.name} (${basename(f.file)})`).join(', ') || 'none: the folder has no .js, .mjs or .ts file'}`,
        ]
      : []),
    `  control API: ${options.control === false ? 'off' : `${url}/__sandbox${options.control?.token ? ' (token required)' : ''}`}`,
    // The URL only: the token is never printed.
    ...(options.upstream
      ? [
          `  upstream: ${options.upstream.url} (unmatched /api/... requests${options.upstream.routes ? ` and ${options.upstream.routes.join(', ')}` : ''}; findings at ${url}/__sandbox/drift)`,
        ]
      : []),
    ...summary.signIn,
  ].join('\n')
}

const listening = (url: string) => `fleet-sandbox listening on ${url}`

/** The version in the package's own package.json. */
function packageVersion(): string {
  return packageRoot()?.version ?? 'unknown'
}
