import {
  type KnownScenario,
  type NamedScenario,
  type SandboxHandle,
  type ScenarioInput,
  type ScenarioListText,
  type StartSandboxOptions,
  startSandbox,
} from '../browser/index.js'
import type { Admin } from '../../core/admin/client.js'
import { type PreparedWorld, type WorldParameters, prepareWorld } from '../../core/admin/story.js'

export * from '../public.js'
export type { SandboxHandle, StartSandboxOptions } from '../browser/index.js'

/**
 * What a story writes: `parameters: { sandbox: { scenario: 'rate-limited', seed: 7 } }`.
 * `S`: the loader's own scenarios (`typeof myScenarios`), to type their names here too.
 */
export interface SandboxParameters<S extends readonly NamedScenario[] = readonly []> extends WorldParameters<
  ScenarioListText<KnownScenario<S>> | ScenarioInput<KnownScenario<S>>[]
> {
  /** No sandbox for this story: requests go to the network. */
  disable?: boolean
}

/** What the loader hands the story in `context.loaded.sandbox`: the world as prepared, its handle and admin. */
export interface SandboxLoaded extends PreparedWorld {
  handle: SandboxHandle<readonly NamedScenario[]>
  /** The admin interface every entry hands out (docs/control-api.md, "From code"): the story's world. */
  admin: Admin<ScenarioInput<NamedScenario>>
}

type AnyParameters = SandboxParameters<readonly NamedScenario[]>
type AnyOptions = StartSandboxOptions<readonly NamedScenario[]>
type AnyHandle = SandboxHandle<readonly NamedScenario[]>

interface StoryContextLike {
  parameters?: { sandbox?: AnyParameters }
}

const DEMO_PASSWORD = 'sandbox'
const WHO = 'fleet-sandbox/storybook'
let started: Promise<AnyHandle> | undefined
let queue: Promise<unknown> = Promise.resolve()

/**
 * A Storybook loader: starts the sandbox once per preview, then before each story resets it to
 * the story's seed, signs a demo account in, and turns the story's scenarios on, so every story
 * sees its own world whatever ran before it. State is not persisted: a story is the same on
 * every load. In `.storybook/preview.ts`: `loaders: [sandboxLoader({ now: '2026-11-22T12:00:00Z' })]`;
 * `scenarios: [maintenanceWindow]` adds scenarios of your own, for every story to switch on.
 */
export function sandboxLoader<const S extends readonly NamedScenario[] = readonly []>(
  given: StartSandboxOptions<S> = {},
) {
  const options = given as AnyOptions
  return async function sandbox(context: StoryContextLike): Promise<{ sandbox?: SandboxLoaded }> {
    const params = context.parameters?.sandbox ?? {}
    if (params.disable) {
      await (await started)?.stop()
      started = undefined
      return {}
    }
    started ??= startSandbox({ persist: false, quiet: true, ...options }).catch((error) => {
      started = undefined
      throw error
    })
    const handle = await started
    const origin = options.origins?.[0] ?? location.origin
    const defaults = { seed: options.seed ?? 1, email: 'admin@fleet.test', password: DEMO_PASSWORD, origin }
    // Stories of a docs page load together: one world at a time, the last one wins.
    const run = queue.then(() => prepareWorld(handle, params, defaults, WHO))
    queue = run.catch(() => undefined)
    return { sandbox: { handle, admin: handle.admin, ...(await run) } }
  }
}
