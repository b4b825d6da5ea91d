import * as z from 'zod'
import type { SandboxAppOptions } from '../app/app.js'
import type { ScenarioRegistry } from '../scenarios/registry.js'
import { upstreamProblem } from '../bridge/upstream.js'
import { DEFAULT_SEED, type EntryOptions } from './entry.js'

export { type EntryOptions, entryAppOptions } from './entry.js'

/**
 * One option of the sandbox, defined once: its flag, its environment variable, its default,
 * its help text and how its text is read. The command line (`--help` too), the Worker's
 * variables, the option types of `fleet-sandbox/node`, `/browser` and `/storybook`, and the
 * flag table of docs/cli.md (`npm run docs`) all come from `sandboxOptions`.
 */
export interface OptionDef<T = unknown> {
  /** The long flag, without `--`. */
  flag: string
  short?: string
  /** The environment variable (the Worker's `vars` too); none for `--help` and `--version`. */
  env?: string
  /** How `--help` and the docs show the value: `N`, `ISO`, `small|medium|large`; none for a switch. */
  value?: string
  /** The default, as the docs show it; read like a given text where `parse` takes it. */
  default?: string
  help: string
  /** Reads the text of a flag or a variable; its issue's message says the rule. */
  parse: z.ZodType<T, string>
  /** The flag may be repeated; its values read as one comma-separated list. */
  multiple?: boolean
  /** Where it is read besides the command line: `worker` (a deployment's variables); `cli` alone otherwise. */
  worker?: boolean
  /** Read by a deployment only (`SANDBOX_LOG`): no flag. */
  workerOnly?: boolean
}

const option = <const D extends OptionDef<any>>(def: D): D => def

/** An integer from `min` to `max`: one rule and one message for every flag and variable. */
export const integer = (min: number, max: number) =>
  z.string().transform((text, ctx) => {
    const n = text.trim() === '' ? Number.NaN : Number(text)
    if (Number.isInteger(n) && n >= min && n <= max) return n
    ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}, got "${text}"` })
    return z.NEVER
  })

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (issue) => `must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}, got "${issue.input}"`,
  })

/** A switch: the flag alone, or `true`, `1` or `yes` in its variable. */
const on = z.string().transform((v) => ['true', '1', 'yes'].includes(v))
const text = z.string()
const isoDateTime = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), {
    error: (issue) => `must be an ISO 8601 date-time, got "${issue.input}"`,
  })
  .transform((v) => new Date(v).toISOString())

/**
 * `fleet-sandbox/node` starts at `small`: a test suite starts fast, and its tests read pages, not
 * 2,000 records. Everywhere else the default is `medium`.
 */
export const TEST_DOUBLE_SIZE = 'small'

/** Every option, in the order `--help` lists them. Adding an option is one entry here. */
export const sandboxOptions = {
  port: option({
    flag: 'port',
    short: 'p',
    env: 'PORT',
    value: 'N',
    default: '4010',
    help: 'port to listen on (0 picks a free one); a port in use exits 1 naming it',
    parse: integer(0, 65535),
  }),
  host: option({
    flag: 'host',
    env: 'HOST',
    value: 'ADDR',
    default: '127.0.0.1',
    help: 'address to bind; off loopback the control API needs --control-token or --no-control',
    parse: text,
  }),
  seed: option({
    flag: 'seed',
    env: 'SANDBOX_SEED',
    value: 'N',
    default: String(DEFAULT_SEED),
    worker: true,
    help: 'seed of the generated data',
    parse: integer(0, 2 ** 31 - 1),
  }),
  now: option({
    flag: 'now',
    env: 'SANDBOX_NOW',
    value: 'ISO',
    default: 'the real time',
    worker: true,
    help: 'ISO date-time the clock starts at; the same seed and now give byte-identical data',
    parse: isoDateTime,
  }),
  scenario: option({
    flag: 'scenario',
    env: 'SANDBOX_SCENARIO',
    value: 'a,b',
    worker: true,
    help: "scenarios active at start: NAME[;OPTION=VALUE...][,NAME...], e.g. 'rate-limited;failures=1,slow;ms=300'",
    parse: text,
  }),
  scenarios: option({
    flag: 'scenarios',
    env: 'SANDBOX_SCENARIOS',
    value: 'DIR',
    help: 'folder of your own scenario files (*.js, *.mjs, *.ts default-exporting defineScenario(...)); they join the bundled ones (docs/your-own-answers.md)',
    parse: text,
  }),
  size: option({
    flag: 'size',
    env: 'SANDBOX_SIZE',
    value: 'small|medium|large',
    default: 'medium',
    worker: true,
    help: '100, 2,000 or 100,000 notifications for the demo client, at most 2,000 for the second (fleet-sandbox/node: small, so suites start fast)',
    parse: oneOf(['small', 'medium', 'large']),
  }),
  notifications: option({
    flag: 'notifications',
    env: 'SANDBOX_NOTIFICATIONS',
    value: 'N',
    worker: true,
    help: 'exact number of notifications of the demo client, at most 2,000 for the second (instead of --size)',
    parse: integer(0, 1_000_000),
  }),
  fixtures: option({
    flag: 'fixtures',
    env: 'SANDBOX_FIXTURES',
    value: 'DIR',
    help: "folder of <collection>.json files that replace seeded collections in every world (docs/fixtures.md); examples is the package's own fixtures/examples/ (a folder of yours so named: ./examples)",
    parse: text,
  }),
  watch: option({
    flag: 'watch',
    env: 'SANDBOX_WATCH',
    help: 'reload --fixtures and --scenarios files when they change, without a restart: a collection is replaced in every world, the rest stays (docs/your-own-answers.md)',
    parse: on,
  }),
  state: option({
    flag: 'state',
    env: 'SANDBOX_STATE',
    value: 'FILE',
    help: 'file the state is restored from before listening and saved to (atomically) as the world changes and on exit (SIGINT/SIGTERM/SIGHUP); refused at start if unreadable, unwritable or not a state',
    parse: text,
  }),
  scenarioTimeout: option({
    flag: 'scenario-timeout',
    env: 'SANDBOX_SCENARIO_TIMEOUT_MS',
    value: 'MS',
    default: '30000',
    help: 'how long a hook of your own scenarios (--scenarios) may take: past it the request answers 500 naming the scenario and its file (docs/your-own-answers.md)',
    parse: integer(100, 600_000),
  }),
  strict: option({
    flag: 'strict',
    env: 'SANDBOX_STRICT',
    worker: true,
    help: 'serve only what the spec documents (assumed routes answer 404)',
    parse: on,
  }),
  controlToken: option({
    flag: 'control-token',
    env: 'SANDBOX_CONTROL_TOKEN',
    value: 'T',
    worker: true,
    help: 'token the control API requires (x-sandbox-control-token)',
    parse: text,
  }),
  noControl: option({
    flag: 'no-control',
    env: 'SANDBOX_NO_CONTROL',
    worker: true,
    help: 'turn the /__sandbox control API off',
    parse: on,
  }),
  quiet: option({
    flag: 'quiet',
    env: 'SANDBOX_QUIET',
    help: 'no request log, and of the banner only the "listening on URL" line, so a script (or Playwright\'s webServer) still learns the port of --port 0',
    parse: on,
  }),
  log: option({
    flag: 'log',
    env: 'SANDBOX_LOG',
    workerOnly: true,
    worker: true,
    help: 'a deployment logs one line per request (wrangler tail); the command line does unless --quiet',
    parse: on,
  }),
  sandboxIdle: option({
    flag: 'sandbox-idle',
    env: 'SANDBOX_IDLE_SECONDS',
    value: 'N',
    default: '1800',
    worker: true,
    help: 'drop an isolated (x-sandbox-id) sandbox unused this many seconds',
    parse: integer(1, 31_536_000),
  }),
  corsOrigin: option({
    flag: 'cors-origin',
    env: 'SANDBOX_CORS_ORIGIN',
    value: 'URL',
    multiple: true,
    worker: true,
    help: 'origin (besides loopback) whose pages may call /__sandbox; repeat it, or list them comma-separated',
    parse: text,
  }),
  maxSandboxes: option({
    flag: 'max-sandboxes',
    env: 'SANDBOX_MAX_SANDBOXES',
    value: 'N',
    default: '200',
    worker: true,
    help: 'at most this many isolated sandboxes; a new x-sandbox-id past it evicts the least recently used one with its state (logged, listed in GET /__sandbox/sandboxes)',
    parse: integer(1, 100_000),
  }),
  noChanges: option({
    flag: 'no-changes',
    env: 'SANDBOX_NO_CHANGES',
    worker: true,
    help: 'journal entries carry no changes (what each write did to the world) and nothing can be rewound: what recording costs (docs/contract.md)',
    parse: on,
  }),
  noConduct: option({
    flag: 'no-conduct',
    env: 'SANDBOX_NO_CONDUCT',
    worker: true,
    help: "the app's conduct is not judged (GET /__sandbox/conduct answers 409): what judging costs (docs/conduct.md)",
    parse: on,
  }),
  engine: option({
    flag: 'engine',
    env: 'SANDBOX_ENGINE',
    value: 'node|workerd',
    default: 'node',
    help: 'the Node server in this process, or workerd through miniflare, a Durable Object per sandbox id (docs/engines.md)',
    parse: oneOf(['node', 'workerd']),
  }),
  persist: option({
    flag: 'persist',
    env: 'SANDBOX_PERSIST',
    value: 'DIR',
    help: 'workerd: folder keeping every sandbox across restarts (default: a fresh temporary one)',
    parse: text,
  }),
  upstream: option({
    flag: 'upstream',
    env: 'SANDBOX_UPSTREAM',
    value: 'URL',
    worker: true,
    help: 'a real backend: /api/... requests no route matches go there, its answers are checked (docs/bridge.md)',
    parse: z
      .string()
      .refine((v) => !upstreamProblem(v), { error: (issue) => `${upstreamProblem(issue.input as string)}` })
      .transform((v) => v.replace(/\/+$/, '')),
  }),
  upstreamToken: option({
    flag: 'upstream-token',
    env: 'SANDBOX_UPSTREAM_TOKEN',
    value: 'T',
    worker: true,
    help: "bearer token of the sandbox's own upstream requests (drift walk, record); never added to a caller's request",
    parse: text,
  }),
  upstreamRoute: option({
    flag: 'upstream-route',
    env: 'SANDBOX_UPSTREAM_ROUTE',
    value: 'PATTERN',
    multiple: true,
    worker: true,
    help: 'a served /api/ route that goes to the upstream anyway: * one segment, ** the rest; repeat it, or list them comma-separated',
    parse: text,
  }),
  help: option({ flag: 'help', short: 'h', help: 'show this help', parse: on }),
  version: option({ flag: 'version', help: 'print the version', parse: on }),
} satisfies Record<string, OptionDef>

export type OptionName = keyof typeof sandboxOptions
/** The value an option reads as (the option types of the entries use these). */
export type OptionValue<K extends OptionName> = z.output<(typeof sandboxOptions)[K]['parse']>
export type OptionValues = { [K in OptionName]?: OptionValue<K> }
/** The variables a deployment reads (the Worker's `env`). */
export type WorkerVariable = {
  [K in OptionName]: (typeof sandboxOptions)[K] extends { worker: true; env: infer E extends string } ? E : never
}[OptionName]

/** Options that exclude each other. */
const exclusive: [OptionName, OptionName][] = [
  ['size', 'notifications'],
  ['controlToken', 'noControl'],
]

/**
 * Reads every option `text` finds (a flag's or a variable's text; undefined when absent) and
 * checks each with its rule; a wrong one throws naming it as `nameOf` says (`--seed`, `SANDBOX_SEED`).
 * An option not given takes its default, unless it excludes another (`--size`: the app's own default).
 */
export function readOptions(
  names: readonly OptionName[],
  text: (def: OptionDef, name: OptionName) => string | undefined,
  nameOf: (def: OptionDef) => string,
): OptionValues {
  const values: Record<string, unknown> = {}
  for (const name of names) {
    const def = sandboxOptions[name] as OptionDef
    const given = text(def, name)
    if (given === undefined) continue
    const result = def.parse.safeParse(given)
    if (!result.success) throw new Error(`${nameOf(def)}: ${result.error.issues[0].message}`)
    values[name] = result.data
  }
  for (const [a, b] of exclusive) {
    const given = (n: OptionName) => values[n] !== undefined && values[n] !== false
    if (given(a) && given(b))
      throw new Error(`${nameOf(sandboxOptions[a])} and ${nameOf(sandboxOptions[b])}: give one or the other`)
  }
  for (const name of names) {
    const def = sandboxOptions[name] as OptionDef
    if (values[name] !== undefined || def.default === undefined || exclusive.some((pair) => pair.includes(name)))
      continue
    const fallback = def.parse.safeParse(def.default)
    if (fallback.success) values[name] = fallback.data
  }
  return values as OptionValues
}

/** The options the command line and a deployment share, as the app takes them, with the defaults above. */
export function appOptionsOf(
  values: OptionValues,
  scenarios: ScenarioRegistry,
  scenarioField: string,
): Pick<
  SandboxAppOptions,
  'seed' | 'now' | 'size' | 'notifications' | 'scenarios' | 'strict' | 'control' | 'upstream' | 'changes' | 'conduct'
> & { sandboxIdleMs: number; maxSandboxes: number } {
  const routes = values.upstreamRoute
    ?.split(',')
    .map((p) => p.trim())
    .filter(Boolean)
  return {
    ...(values.upstream
      ? {
          upstream: {
            url: values.upstream,
            ...(values.upstreamToken ? { token: values.upstreamToken } : {}),
            ...(routes?.length ? { routes } : {}),
          },
        }
      : {}),
    seed: values.seed!,
    now: values.now,
    size: values.size,
    notifications: values.notifications,
    scenarios: scenarios.parseList(values.scenario ?? '', scenarioField),
    strict: values.strict ?? false,
    control: values.noControl ? false : values.controlToken ? { token: values.controlToken } : {},
    sandboxIdleMs: values.sandboxIdle! * 1000,
    maxSandboxes: values.maxSandboxes!,
    ...(values.noChanges ? { changes: false } : {}),
    ...(values.noConduct ? { conduct: false } : {}),
  }
}

/** What the entries take, typed as the schema reads it: a type that drifts from its flag's fails here. */
const entryTyped: {
  [K in 'seed' | 'now' | 'size' | 'notifications' | 'strict']-?: OptionValue<K>
} extends Required<Pick<EntryOptions, 'seed' | 'now' | 'size' | 'notifications' | 'strict'>>
  ? true
  : never = true
void entryTyped

/** `--help`'s table and the docs' flag table, in one shape. */
export const optionRows = (where: 'cli' | 'all') =>
  (Object.entries(sandboxOptions) as [OptionName, OptionDef][])
    .filter(([, d]) => where === 'all' || !d.workerOnly)
    .map(([name, d]) => ({ name, ...d }))

/**
 * `--cors-origin` / `SANDBOX_CORS_ORIGIN` (a repeated flag reads as one comma-separated list),
 * each an exact origin; a wrong one throws naming `field`. The command line and a deployment alike.
 */
export function originList(value: string | undefined, field: string): string[] | undefined {
  if (value === undefined) return undefined
  return value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => {
      let origin: string | undefined
      try {
        origin = new URL(o).origin
      } catch {
        /* reported below */
      }
      if (origin !== o)
        throw new Error(
          `${field}: must be an origin such as https://app.example.com:8443 (scheme, host, optional port), got "${o}"`,
        )
      return o
    })
}
