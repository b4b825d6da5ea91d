import type { StateBackend } from '../../core/persist/backend.js'

/**
 * The persistence port's backend in the browser: IndexedDB (not sessionStorage, whose quota a
 * world of the default size nears; not @msw/data's `persist()`: docs/data-layer.md), one value
 * per key of the port, keyed `[name, key]` so several saved states (the `persist` name) share one database.
 */
const DB_NAME = 'fleet-sandbox'
/** Version 2 keeps the port's keys; version 1 held one whole snapshot per name, dropped on upgrade. */
const DB_VERSION = 2
const STORE = 'parts'

export function indexedDbBackend(name: string): StateBackend & { close(): void } {
  let db: Promise<IDBDatabase> | undefined
  const open = () =>
    (db ??= new Promise((resolve, reject) => {
      const req = indexedDB.open(DB_NAME, DB_VERSION)
      req.onupgradeneeded = () => {
        for (const old of [...req.result.objectStoreNames]) req.result.deleteObjectStore(old)
        req.result.createObjectStore(STORE)
      }
      req.onsuccess = () => resolve(req.result)
      req.onerror = () => reject(req.error)
      req.onblocked = () =>
        reject(new Error(`IndexedDB "${DB_NAME}" is blocked by another tab holding an older version`))
    }))
  /** One transaction; resolves once it commits. The commit is asked for at once, so a write started as the page unloads can still land. */
  const write = async (each: (store: IDBObjectStore) => void) => {
    const tx = (await open()).transaction(STORE, 'readwrite', { durability: 'relaxed' })
    each(tx.objectStore(STORE))
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve()
      tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted'))
    })
    tx.commit?.()
    return done
  }
  const request = <T>(req: IDBRequest<T>) =>
    new Promise<T>(
      (resolve, reject) => ((req.onsuccess = () => resolve(req.result)), (req.onerror = () => reject(req.error))),
    )
  const reading = async () => (await open()).transaction(STORE, 'readonly').objectStore(STORE)
  return {
    get: async (key) => request((await reading()).get([name, key])),
    async list(prefix = '') {
      const range = IDBKeyRange.bound([name, prefix], [name, `${prefix}\uffff`])
      const store = await reading()
      const [keys, values] = await Promise.all([request(store.getAllKeys(range)), request(store.getAll(range))])
      return new Map(keys.map((k, i) => [(k as [string, string])[1], values[i]]))
    },
    put: (entries) => write((s) => entries.forEach((value, key) => s.put(value, [name, key]))),
    delete: (keys) => write((s) => keys.forEach((key) => s.delete([name, key]))),
    close() {
      void db?.then((d) => d.close())
      db = undefined
    },
  }
}
