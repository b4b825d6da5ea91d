import type { ObjectStorage } from '../../src/engines/workerd/worker/env.js'

/** A Durable Object's storage in memory, counting the calls that write it. */
export function memoryStorage() {
  const values = new Map<string, unknown>()
  const writes: string[] = []
  const storage: ObjectStorage = {
    get: async <T>(key: string) => values.get(key) as T,
    list: async <T>(o?: { prefix?: string }) =>
      new Map([...values].filter(([k]) => k.startsWith(o?.prefix ?? ''))) as Map<string, T>,
    async put(entries) {
      writes.push(...Object.keys(entries))
      for (const [k, v] of Object.entries(entries)) values.set(k, v)
    },
    async delete(keys) {
      writes.push(...keys)
      return keys.filter((k) => values.delete(k)).length
    },
    deleteAll: async () => values.clear(),
    setAlarm: async () => undefined,
    deleteAlarm: async () => undefined,
  }
  return { storage, values, writes }
}
