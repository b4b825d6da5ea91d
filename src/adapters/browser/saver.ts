import type { Sandbox } from '../../core/sandbox/sandbox.js'
import { lightOf } from './light.js'
import type { Saved, StateStore } from './store.js'

/** After a write the state is saved almost at once; after a read (journal, sliding sessions) when the page is idle. */
const WRITE_DELAY_MS = 50
const READ_DELAY_MS = 2_000

/**
 * Saves the default sandbox after changes. A write saves the whole state; a read changes only
 * the light part (journal, sessions, clock), which is saved alone: a few kilobytes instead of
 * megabytes. Bursts of writes share one save, and a save that took long (a `large` world)
 * spaces the next ones out, so saving never takes more than a fifth of the page's time. Saves
 * are ordered by IndexedDB itself: each opens its transaction at once.
 */
export class Saver {
  #timer: ReturnType<typeof setTimeout> | undefined
  #due = Infinity
  #cost = 0
  #warned = false
  /** `savedAt` of the whole state last written: light saves complete it. */
  #base: number | undefined
  /** Whether the records may differ from the last whole state written, and the light part from the last save. */
  #records = true
  #light = true
  /** Set by a whole save made as the page hides: the next hiding event saves it again (see `hidden`). */
  #again = false

  constructor(
    private readonly store: StateStore,
    private readonly sandbox: () => Sandbox,
    private readonly fingerprint: string,
    /** `savedAt` of the saved state this page resumed, if any. */
    base?: number,
  ) {
    this.#base = base
    this.#records = base === undefined
    this.#light = base === undefined
  }

  /** After a request was answered: a write may change records; a read only the light part. */
  schedule(kind: 'write' | 'read'): void {
    if (kind === 'write') this.#records = true
    this.#light = true
    const delay = kind === 'write' ? Math.max(WRITE_DELAY_MS, 4 * this.#cost) : READ_DELAY_MS
    const due = Date.now() + delay
    if (due >= this.#due) return
    clearTimeout(this.#timer)
    this.#due = due
    this.#timer = setTimeout(() => void this.save(), delay)
  }

  /** Records may have changed outside a request (the handle's `sandbox()` was used). */
  touched(): void {
    this.#records = this.#light = true
  }

  /**
   * A world no write has changed is saved as the instant it was seeded at, with its light part:
   * a reload seeds it again the same, so its dates (which follow the real time without `now`)
   * stay where they were. Small enough to land at once, before the page could be reloaded.
   */
  fresh(seededAt: number): Promise<void> {
    this.cancel()
    const savedAt = Date.now()
    return this.#write(() => {
      const light = lightOf(this.sandbox())
      this.#base = savedAt
      this.#records = this.#light = false
      return { state: { fingerprint: this.fingerprint, savedAt, seededAt }, light: { fingerprint: this.fingerprint, savedAt, base: savedAt, state: light } }
    })
  }

  /** Saves now (the whole state, or only the light part when no write came since the last whole save). Synchronous up to the write, so it is safe in `pagehide`. */
  save(whole = false): Promise<void> {
    this.cancel()
    const records = whole || this.#records || this.#base === undefined
    const savedAt = Date.now()
    const started = performance.now()
    const pending = this.#write(() => {
      const sandbox = this.sandbox()
      const light = { fingerprint: this.fingerprint, savedAt, base: this.#base!, state: lightOf(sandbox) }
      if (!records) {
        this.#light = false
        return { light }
      }
      const state = { fingerprint: this.fingerprint, savedAt, seededAt: sandbox.seededAt, snapshot: JSON.stringify(sandbox.snapshot()) }
      this.#base = light.base = savedAt
      this.#records = this.#light = false
      return { state, light }
    })
    if (records) this.#cost = performance.now() - started
    return pending
  }

  /**
   * The page is hidden or unloading: saves what changed. Measured in Chromium, a write of the
   * whole state (megabytes) started in `pagehide` is lost when the page goes at once, and lands
   * when the page lives on for as long as a second save takes; a light write lands either way.
   * So after a whole save here the next hiding event (a reload and a close fire both
   * `pagehide` and `visibilitychange`) saves it again, and a page that only read saves a few
   * kilobytes, which keeps its reload from waiting on the old page.
   */
  hidden(): void {
    if (this.#again) {
      this.#again = false
      void this.save(true)
      return
    }
    if (!this.#records && !this.#light) return
    this.#again = this.#records
    void this.save()
  }

  /** The page is visible again. */
  shown(): void {
    this.#again = false
  }

  cancel(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#due = Infinity
  }

  #write(take: () => Saved): Promise<void> {
    let pending: Promise<void>
    try {
      pending = this.store.save(take())
    } catch (error) {
      pending = Promise.reject(error)
    }
    return pending.catch((error) => {
      if (!this.#warned) console.warn('fleet-sandbox: could not save the sandbox state; it will not survive a reload.', error)
      this.#warned = true
    })
  }
}
