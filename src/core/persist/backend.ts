/**
 * The persistence port's backend: a small key-value store a runtime supplies (a file for
 * `--state`, IndexedDB in the browser, a Durable Object's storage). unstorage's shape, four
 * calls: values are JSON-safe; calls issued one after another are applied in that order.
 */
export interface StateBackend {
  get(key: string): Promise<unknown>
  /** Every key and value (under `prefix`, when given). */
  list(prefix?: string): Promise<Map<string, unknown>>
  /** Puts many values at once; resolves once they are durable. */
  put(entries: Map<string, unknown>): Promise<void>
  /** Deletes many keys at once; resolves once that is durable. */
  delete(keys: string[]): Promise<void>
}

/** A backend in memory: the plain reference the port's tests use, and the file driver's working copy. */
export class MemoryBackend implements StateBackend {
  readonly values = new Map<string, unknown>()

  async get(key: string): Promise<unknown> {
    return this.values.get(key)
  }

  async list(prefix = ''): Promise<Map<string, unknown>> {
    return new Map([...this.values].filter(([k]) => k.startsWith(prefix)))
  }

  async put(entries: Map<string, unknown>): Promise<void> {
    for (const [k, v] of entries) this.values.set(k, v)
  }

  async delete(keys: string[]): Promise<void> {
    for (const k of keys) this.values.delete(k)
  }
}

/** A store that takes plain records and at most `batch` keys a call: a Durable Object's storage. */
export interface RecordStore {
  get(key: string): Promise<unknown>
  list(options?: { prefix?: string }): Promise<Map<string, unknown>>
  put(entries: Record<string, unknown>): Promise<void>
  delete(keys: string[]): Promise<unknown>
}

/** The port's backend over a RecordStore: large puts and deletes split into calls issued at once. */
export function recordBackend(store: RecordStore, batch = 128): StateBackend {
  const split = <T>(items: T[], each: (part: T[]) => Promise<unknown>) => {
    const calls: Promise<unknown>[] = []
    for (let i = 0; i < items.length; i += batch) calls.push(each(items.slice(i, i + batch)))
    return Promise.all(calls).then(() => undefined)
  }
  return {
    get: (key) => store.get(key),
    list: (prefix) => store.list(prefix ? { prefix } : undefined),
    put: (entries) => split([...entries], (part) => store.put(Object.fromEntries(part))),
    delete: (keys) => split(keys, (part) => store.delete(part)),
  }
}
