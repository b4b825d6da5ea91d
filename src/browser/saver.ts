import type { Sandbox } from '../core/sandbox.js'
import type { StateStore } from './store.js'

/** After a write the state is saved almost at once; after a read (journal, sliding sessions) when the page is idle. */
const WRITE_DELAY_MS = 50
const READ_DELAY_MS = 2_000

/**
 * Saves the default sandbox after changes. Bursts of writes share one save, and a save that
 * took long (a `large` world) spaces the next ones out, so saving never takes more than a fifth
 * of the page's time. Saves are ordered by IndexedDB itself: each opens its transaction at once.
 */
export class Saver {
  #timer: ReturnType<typeof setTimeout> | undefined
  #due = Infinity
  #cost = 0
  #warned = false

  constructor(
    private readonly store: StateStore,
    private readonly sandbox: () => Sandbox,
    private readonly fingerprint: string,
  ) {}

  schedule(kind: 'write' | 'read'): void {
    const delay = kind === 'write' ? Math.max(WRITE_DELAY_MS, 4 * this.#cost) : Math.max(READ_DELAY_MS, 4 * this.#cost)
    const due = Date.now() + delay
    if (due >= this.#due) return
    clearTimeout(this.#timer)
    this.#due = due
    this.#timer = setTimeout(() => void this.save(), delay)
  }

  /** Saves now: the snapshot is taken synchronously, so it is safe in `pagehide`. */
  save(): Promise<void> {
    this.cancel()
    const started = performance.now()
    let pending: Promise<void>
    try {
      const snapshot = JSON.stringify(this.sandbox().snapshot())
      pending = this.store.save({ fingerprint: this.fingerprint, savedAt: Date.now(), snapshot })
    } catch (error) {
      pending = Promise.reject(error)
    }
    this.#cost = performance.now() - started
    return pending.catch((error) => {
      if (!this.#warned) console.warn('fleet-sandbox: could not save the sandbox state; it will not survive a reload.', error)
      this.#warned = true
    })
  }

  cancel(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#due = Infinity
  }
}
