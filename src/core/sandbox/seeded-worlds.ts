import { type Accounts, seedWorld, type Size } from '../seed/seed.js'
import type { Fixtures } from '../store/fixtures.js'
import { World } from '../store/world.js'

/**
 * Seeded worlds kept per seed, size and start (and fixtures), so new sandboxes fork instead of
 * re-seeding. A fork shares the seeded records until it writes (World.fork): a sandbox holds
 * only what it changed. The worlds kept here are never written. One per app: two apps in a
 * process (tests, Storybook) never share or evict each other's.
 */
export class SeededWorlds {
  readonly #bases = new Map<string, Promise<World>>()
  /** The same with each fixture set's collections in place of the seeded ones. */
  readonly #fixtured = new WeakMap<Fixtures, Map<string, Promise<World>>>()

  constructor(
    readonly accounts: Accounts,
    readonly capacity = 4,
  ) {}

  /** A fork of the seeded world for these figures, with `fixtures` in place of their collections. */
  async world(
    seed: number,
    now: number,
    size: Size | undefined,
    notifications: number | undefined,
    fixtures?: Fixtures,
  ): Promise<World> {
    const key = `${seed}|${now}|${size}|${notifications}`
    let base = this.#bases.get(key)
    if (!base) {
      const rows = seedWorld({ seed, now, size, notifications, accounts: this.accounts })
      // Seeded rows are already what the schemas output (src/core/seed/seed.test.ts): not checked again.
      base = World.fromRows(rows, true)
      if (this.#bases.size >= this.capacity) this.#bases.delete(this.#bases.keys().next().value!)
      this.#bases.set(key, base)
    }
    if (fixtures) {
      let worlds = this.#fixtured.get(fixtures)
      if (!worlds) this.#fixtured.set(fixtures, (worlds = new Map()))
      let world = worlds.get(key)
      if (!world) worlds.set(key, (world = withFixtures(base, fixtures)))
      base = world
    }
    return (await base).fork()
  }
}

/** The seeded world with the fixture collections in place of theirs (fixture rows are checked already). */
async function withFixtures(seeded: Promise<World>, fixtures: Fixtures): Promise<World> {
  const world = (await seeded).fork()
  await world.load(fixtures.rows)
  return world
}
