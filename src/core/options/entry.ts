import type { SandboxAppOptions } from '../app/app.js'
import type { ActiveScenario } from '../scenarios/define.js'
import type { Size } from '../seed/seed.js'
import { type FixtureRows, parseFixtures } from '../store/fixtures.js'
import { type UpstreamOptions, upstreamOption } from '../bridge/upstream.js'

// Apart from the options schema (options.ts), which checks these types against its flags: the
// browser entry reads them too, and the schema's rules and help texts would put it over its gzip
// budget (test/browser/sandbox.test.ts; docs/benchmarks-history.md).

/** `--seed`'s default, every entry's too. */
export const DEFAULT_SEED = 1

/**
 * What the entries (`fleet-sandbox/node`, `/browser`, `/storybook`) take that the command line
 * takes too, typed as the schema reads the flags (where their defaults and help are).
 */
export interface EntryOptions {
  /** Seed of the generated data (default 1). */
  seed?: number
  /** ISO date-time the sandbox clock starts at (default: the real time). */
  now?: string
  /** `small`, `medium` or `large` (default `medium`; `small` in `fleet-sandbox/node`). */
  size?: Size
  /** Exact number of notifications of the demo client, instead of `size`. */
  notifications?: number
  /** Serve only what the spec documents. */
  strict?: boolean
  /**
   * Collections that replace the seeded ones, keyed by collection name (docs/fixtures.md), in
   * every world: at start, after each reset (any seed) and in each `x-sandbox-id` sandbox.
   */
  fixtures?: FixtureRows
  /**
   * The real backend (docs/bridge.md): an `/api/...` request no route matches goes to this URL
   * (with `routes`, also the routes those patterns name), and its answers are checked against
   * the sandbox's OpenAPI document. In a browser the upstream must allow the page's origin (CORS).
   */
  upstream?: string | UpstreamOptions
}

/**
 * An entry's options as the app takes them, with the schema's defaults (`size`: the entry's
 * own, see TEST_DOUBLE_SIZE); fixtures and the upstream are checked now, so a bad one fails
 * where the entry is set up. The control API is open: the entries serve no network.
 */
export function entryAppOptions(
  options: EntryOptions,
  scenarios: ActiveScenario[],
  size?: Size,
): Pick<
  SandboxAppOptions,
  'seed' | 'now' | 'size' | 'notifications' | 'scenarios' | 'strict' | 'control' | 'fixtures' | 'upstream'
> {
  if (options.fixtures) parseFixtures(options.fixtures)
  return {
    seed: options.seed ?? DEFAULT_SEED,
    now: options.now,
    size: options.notifications === undefined ? (options.size ?? size) : undefined,
    notifications: options.notifications,
    scenarios,
    strict: options.strict,
    control: {},
    fixtures: options.fixtures,
    upstream: upstreamOption(options.upstream),
  }
}
