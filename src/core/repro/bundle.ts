import { hex, sha256Bytes } from '../http/bytes.js'
import type { Sandbox } from '../sandbox/sandbox.js'
// Types only from the entry's modules: this module is loaded on first use, and a value import would split them out of the entry (its gzip budget).
import type { Step } from './log.js'

/** The bundle format this sandbox writes and reads (docs/debugging.md "The repro bundle"). */
export const REPRO_VERSION = 1

/** `GET /__sandbox/repro`: a world as its seed, its start and the steps since (docs/debugging.md). */
export interface ReproBundle {
  version: typeof REPRO_VERSION
  seed: number
  /** The instant the seeded dates are relative to. */
  seededAt: string
  /** The clock when the world began (its last reset), and whether it was frozen. */
  now: string
  frozen: boolean
  size: string | null
  notifications: number | null
  /** `sha256:` of the --fixtures collections the world is built around, or `none`. */
  fixtures: string
  /** The scenario schedule and the overrides the world began with. */
  scenarios: unknown[]
  overrides: unknown[]
  requests: Step[]
  /** The world when the bundle was made: its clock, and digests a replay must match (`parts`: one per collection and state). */
  end: { now: string; frozen: boolean; digest: string; parts: Record<string, string> }
  /** `sha256:` of everything above: a bundle changed or cut after it was made is refused before anything runs. */
  checksum: string
}

/** The bundle of this sandbox's world (its log complete: the route answers 409 otherwise). */
export async function reproBundle(sandbox: Sandbox): Promise<ReproBundle> {
  const log = sandbox.repro
  const parts = await worldParts(sandbox)
  const end = sandbox.clock.toJSON()
  const body: Omit<ReproBundle, 'checksum'> = {
    version: REPRO_VERSION,
    seed: sandbox.seed,
    seededAt: new Date(sandbox.seededAt).toISOString(),
    now: log.start.now,
    frozen: log.start.frozen,
    size: sandbox.config.size ?? null,
    notifications: sandbox.config.notifications ?? null,
    fixtures: await fixturesDigest(sandbox),
    scenarios: log.start.scenarios,
    overrides: log.start.overrides,
    requests: log.steps,
    end: { ...end, digest: await sha256(Object.entries(parts).map(([k, v]) => `${k}=${v}`).join('\n')), parts },
  }
  return { ...body, checksum: await sha256(canonical(body)) }
}

/**
 * One digest per collection and per part of the state a replay rebuilds: seed, the clock when
 * frozen, scenarios, overrides, outbox, next id. Not sessions (a replay signs in again), the
 * journal (its requests are the replay's own) or the signing key (a secret). Minted tokens count
 * by their order, not their value (a replay mints others).
 */
export async function worldParts(sandbox: Sandbox): Promise<Record<string, string>> {
  const clock = sandbox.clock.toJSON()
  const state: Record<string, unknown> = {
    seed: sandbox.seed,
    clock: clock.frozen ? clock : { frozen: false },
    scenarios: sandbox.active,
    overrides: sandbox.overrides.list(),
    outbox: sandbox.outbox.list(),
    nextId: sandbox.ids.value,
    ...sandbox.world.rows(),
  }
  const out: Record<string, string> = {}
  for (const name of Object.keys(state).sort()) out[name] = (await sha256(sandbox.repro.marked(canonical(state[name])))).slice(7, 23)
  return out
}

export async function fixturesDigest(sandbox: Sandbox): Promise<string> {
  return sandbox.config.fixtures ? sha256(canonical(sandbox.config.fixtures)) : 'none'
}

/** JSON with every object's keys in order: the same value is the same text wherever it was built. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v
    const sorted: Record<string, unknown> = {}
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
    return sorted
  })
}

/** A text's digest as a bundle writes it: `sha256:` and the hex. */
export async function sha256(text: string): Promise<string> {
  return `sha256:${hex(await sha256Bytes(text))}`
}
