import type { NotificationStore } from '../notifications/notification-store.js'
import { type Accounts, seedWorld, type Size } from '../seed/seed.js'
import { indexNotifications, type WorldRows } from '../store/world.js'

interface Base {
  /** Every collection but the notifications, as the schemas output them. */
  rows: WorldRows
  notifications: NotificationStore
}

/**
 * Seeded worlds kept per seed, size and start, so new sandboxes fork instead of re-seeding.
 * One per app: two apps in a process (tests, Storybook) never share or evict each other's.
 */
export class SeededWorlds {
  readonly #bases = new Map<string, Base>()

  constructor(
    readonly accounts: Accounts,
    readonly capacity = 4,
  ) {}

  base(seed: number, now: number, size: Size | undefined, notifications: number | undefined): Base {
    const key = `${seed}|${now}|${size}|${notifications}`
    let base = this.#bases.get(key)
    if (!base) {
      const rows = seedWorld({ seed, now, size, notifications, accounts: this.accounts })
      // Only the index is forked afterwards: the rows it was built from can go. Seeded rows are
      // already what the schemas output (src/core/seed/seed.test.ts), so no sandbox checks them.
      base = { rows: { ...rows, notifications: [] }, notifications: indexNotifications(rows.notifications) }
      if (this.#bases.size >= this.capacity) this.#bases.delete(this.#bases.keys().next().value!)
      this.#bases.set(key, base)
    }
    return base
  }
}
