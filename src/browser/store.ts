/**
 * Where the browser sandbox keeps its state between page loads: one IndexedDB record per key.
 * IndexedDB rather than sessionStorage because a snapshot of the default size is already
 * about 2.2 million characters (4.4 MB as UTF-16), close to sessionStorage's quota, and the
 * `large` size is twenty times that.
 */
export interface SavedState {
  /** The startSandbox options the state was made from: other options start fresh. */
  fingerprint: string
  /** Real time of the save, so the sandbox clock can go on as if the page never closed. */
  savedAt: number
  /** `Sandbox.snapshot()` as JSON text: the same path as `PUT /__sandbox/snapshot`. */
  snapshot: string
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

  async load(): Promise<SavedState | undefined> {
    const db = await this.#open()
    const saved = await request(db.transaction(STORE, 'readonly').objectStore(STORE).get(this.key))
    return saved && typeof saved.snapshot === 'string' ? (saved as SavedState) : undefined
  }

  /** Resolves once the write is durable; the commit is asked for at once, so a write started while the page unloads still lands. */
  async save(state: SavedState): Promise<void> {
    const db = await this.#open()
    const tx = db.transaction(STORE, 'readwrite', { durability: 'relaxed' })
    tx.objectStore(STORE).put(state, this.key)
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
    await request(tx.objectStore(STORE).delete(this.key))
  }

  close(): void {
    void this.#db?.then((db) => db.close())
    this.#db = undefined
  }
}
