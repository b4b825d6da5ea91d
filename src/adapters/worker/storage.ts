import type { StateBackend } from '../../core/persist/backend.js'
import type { ObjectStorage } from './env.js'

/** Storage takes at most 128 keys per call. */
const BATCH = 128

/** The persistence port's backend on a Durable Object's storage. */
export function objectBackend(storage: ObjectStorage): StateBackend {
  return {
    get: (key) => storage.get(key),
    list: (prefix) => storage.list(prefix ? { prefix } : undefined),
    async put(entries) {
      const all = [...entries]
      const calls: Promise<void>[] = []
      for (let i = 0; i < all.length; i += BATCH) calls.push(storage.put(Object.fromEntries(all.slice(i, i + BATCH))))
      await Promise.all(calls)
    },
    async delete(keys) {
      const calls: Promise<number>[] = []
      for (let i = 0; i < keys.length; i += BATCH) calls.push(storage.delete(keys.slice(i, i + BATCH)))
      await Promise.all(calls)
    },
  }
}
