import type { OverrideInput } from './admin.js'
import { fetchSend, signIn } from './client.js'
import type { SavedWorld } from './life-cycle.js'

/** The in-process entry a story's world lives in (the browser entry's handle). */
export type WorldHandle<Scenario> = Pick<SavedWorld<Scenario>, 'reset' | 'use' | 'sandbox' | 'admin'>

/** What a story asks of its world: Storybook's `parameters.sandbox`, resolved by the loader. */
export interface WorldAsked<Scenario> {
  seed: number
  /** `'a,b'` (each piece checked by `use()` at run time) or a list. */
  scenario?: string | Scenario[]
  /** Signed in through the API's own sign-in route, at `origin`, before the scenarios turn on. */
  signIn?: { email: string; password: string; origin: string }
  advanceBy?: string | number
  overrides?: OverrideInput[]
}

/**
 * A story's world, whatever ran before it: reset to its seed, a demo account signed in (its
 * token), the clock moved, its scenarios and overrides on, and its journal empty, so it holds only
 * what the story's component asked. `who` (the entry) starts each error's message.
 */
export async function prepareWorld<Scenario>(
  handle: WorldHandle<Scenario>,
  asked: WorldAsked<Scenario>,
  who: string,
): Promise<{ token?: string; seed: number; scenarios: string[] }> {
  await handle.reset(asked.seed)
  const sandbox = handle.sandbox()
  const by = asked.signIn
  // Through the front door, as the app would: the same rules, the same session store.
  const token = by && (await signIn(fetchSend(by.origin), by.email, by.password, who))
  if (asked.advanceBy !== undefined) await handle.admin.advanceClock(asked.advanceBy)
  const scenarios = asked.scenario ?? []
  // Text pieces are checked by use() at run time, as the whole text was by its type.
  const pieces = typeof scenarios === 'string' ? scenarios.split(',').map((s) => s.trim()) : scenarios
  await handle.use(...(pieces.filter(Boolean) as Scenario[]))
  for (const override of asked.overrides ?? []) await handle.admin.override(override)
  sandbox.journal.clear()
  return { token, seed: sandbox.seed, scenarios: sandbox.inForce().map((a) => a.name) }
}
