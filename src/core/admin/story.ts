import type { OverrideInput } from './admin.js'
import { fetchSend, signIn } from './client.js'
import type { SavedWorld } from './life-cycle.js'

/** The in-process entry a story's world lives in (the browser entry's handle). */
export type WorldHandle<Scenario> = Pick<SavedWorld<Scenario>, 'reset' | 'use' | 'sandbox' | 'admin'>

/** What a story asks of its world (Storybook's `parameters.sandbox`); `Scenarios` types its scenarios. */
export interface WorldParameters<Scenarios> {
  /** Seed of the story's world (default: the loader's, else 1). */
  seed?: number
  /** Scenarios active for the story: `'a,b'`, `'rate-limited;failures=1'` or a list. */
  scenario?: Scenarios
  /** Demo account signed in before the scenarios turn on (default `admin@fleet.test`); `false` for none. */
  signIn?: string | false
  /** Moves the clock before the story renders: `'31d'` or seconds, as `POST /__sandbox/clock`. */
  advanceBy?: string | number
  /** Answers of your own for the story (`POST /__sandbox/overrides` bodies), added after the scenarios. */
  overrides?: OverrideInput[]
}

/** Where a story says nothing: the loader's seed, its demo account, and where that signs in. */
export interface WorldDefaults {
  seed: number
  email: string
  password: string
  origin: string
}

/** A story's world as prepared. */
export interface PreparedWorld {
  /** Token of the signed-in demo account (send as `Authorization: Bearer <token>`), if any. */
  token?: string
  seed: number
  /** The scenarios in force, by name. */
  scenarios: string[]
}

/**
 * A story's world, whatever ran before it: reset to its seed, a demo account signed in (its
 * token), the clock moved, its scenarios and overrides on, and its journal empty, so it holds only
 * what the story's component asked. `who` (the entry) starts each error's message.
 */
export async function prepareWorld<Scenario>(
  handle: WorldHandle<Scenario>,
  params: WorldParameters<string | Scenario[]>,
  defaults: WorldDefaults,
  who: string,
): Promise<PreparedWorld> {
  await handle.reset(params.seed ?? defaults.seed)
  const sandbox = handle.sandbox()
  const email = params.signIn === undefined ? defaults.email : params.signIn
  // Through the front door, as the app would: the same rules, the same session store.
  const token = email ? await signIn(fetchSend(defaults.origin), email, defaults.password, who) : undefined
  if (params.advanceBy !== undefined) await handle.admin.advanceClock(params.advanceBy)
  const scenarios = params.scenario ?? []
  // Text pieces are checked by use() at run time, as the whole text was by its type.
  const pieces = typeof scenarios === 'string' ? scenarios.split(',').map((s) => s.trim()) : scenarios
  await handle.use(...(pieces.filter(Boolean) as Scenario[]))
  for (const override of params.overrides ?? []) await handle.admin.override(override)
  sandbox.journal.clear()
  return { token, seed: sandbox.seed, scenarios: sandbox.inForce().map((a) => a.name) }
}
