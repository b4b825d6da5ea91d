import type { LightState } from './light.js'

/**
 * Where the browser sandbox keeps its state between page loads: IndexedDB records per key.
 * IndexedDB rather than sessionStorage because a snapshot of the default size is already
 * about 2.2 million characters (4.4 MB as UTF-16), close to sessionStorage's quota, and the
 * `large` size is twenty times that.
 *
 * Not @msw/data's `persist()`, measured (bench/persist.mjs, default size): it restores the 24
 * tables (877 records) in 123 ms of CPU, the snapshot restores the whole sandbox (those, 4,000
 * notifications, clock, sessions, journal) in 104 ms; it covers no notifications (not a
 * @msw/data collection) and no sandbox state; it saves to localStorage (same quota) only on
 * `unload`, which bfcache and mobile browsers skip; and it keys each collection by a creation
 * counter, which isolated sandboxes (x-sandbox-id) shift from one page load to the next.
 */
export interface SavedState {
  /** The startSandbox options the state was made from: other options start fresh. */
  fingerprint: string
  /** Real time of the save, so the sandbox clock can go on as if the page never closed. */
  savedAt: number
  /** The instant the world's dates are relative to: a reload seeds from it again (resets, isolated sandboxes); absent in states saved by earlier versions. */
  seededAt?: number
  /** `Sandbox.snapshot()` as JSON text, the same path as `PUT /__sandbox/snapshot`; none for a world no write has changed, which seeds again the same. */
  snapshot?: string
}

/** The light part of the state (journal, sessions, clock), saved more often than the records. */
export interface SavedLight {
  fingerprint: string
  savedAt: number
  /** `savedAt` of the state it completes: with any other, it is stale and left out. */
  base: number
  state: LightState
}

export interface Saved {
  state?: SavedState
  light?: SavedLight
}

const DB_NAME = 'fleet-sandbox'
const STORE = 'state'

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result)
    req.onerror = () => reject(req.error)
  })
}

export class StateStore {
  #db: Promise<IDBDatabase> | undefined

  constructor(readonly key: string) {}

  static available(): boolean {
    return typeof indexedDB !== 'undefined'
  }

  get #lightKey(): string {
    return `${this.key}#light`
  }

  #open(): Promise<IDBDatabase> {
    this.#db ??= new Promise((resolve, reject) => {
      const req = indexedDB.open(DB_NAME, 1)
      req.onupgradeneeded = () => req.result.createObjectStore(STORE)
      req.onsuccess = () => resolve(req.result)
      req.onerror = () => reject(req.error)
      req.onblocked = () => reject(new Error(`IndexedDB "${DB_NAME}" is blocked by another tab holding an older version`))
    })
    return this.#db
  }

  async load(): Promise<Saved> {
    const db = await this.#open()
    const store = db.transaction(STORE, 'readonly').objectStore(STORE)
    const [state, light] = await Promise.all([request(store.get(this.key)), request(store.get(this.#lightKey))])
    const usable = state && (typeof state.snapshot === 'string' || (state.snapshot === undefined && typeof state.seededAt === 'number'))
    return { state: usable ? (state as SavedState) : undefined, light: light && light.state ? (light as SavedLight) : undefined }
  }

  /** Resolves once the write is durable; the commit is asked for at once, so a write started while the page unloads can still land. */
  async save(saved: Saved): Promise<void> {
    const db = await this.#open()
    const tx = db.transaction(STORE, 'readwrite', { durability: 'relaxed' })
    if (saved.state) tx.objectStore(STORE).put(saved.state, this.key)
    if (saved.light) tx.objectStore(STORE).put(saved.light, this.#lightKey)
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve()
      tx.onerror = () => reject(tx.error)
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted'))
    })
    tx.commit?.()
    return done
  }

  async clear(): Promise<void> {
    const db = await this.#open()
    const tx = db.transaction(STORE, 'readwrite')
    tx.objectStore(STORE).delete(this.#lightKey)
    await request(tx.objectStore(STORE).delete(this.key))
  }

  close(): void {
    void this.#db?.then((db) => db.close())
    this.#db = undefined
  }
}
