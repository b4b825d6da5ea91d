import { describe, expect, it } from 'vitest'
import type { ObjectStorage, WorkerEnv } from './env.js'
import { SandboxObject } from './object.js'

/** A Durable Object's storage in memory, counting the calls that write it. */
function memoryStorage() {
  const values = new Map<string, unknown>()
  const writes: string[] = []
  const storage: ObjectStorage = {
    get: async <T>(key: string) => values.get(key) as T,
    list: async <T>(o?: { prefix?: string }) => new Map([...values].filter(([k]) => k.startsWith(o?.prefix ?? ''))) as Map<string, T>,
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

const directory = { fetch: async () => Response.json(Date.parse('2026-11-22T12:00:00.000Z')) }
const env = {
  SANDBOX_OPTIONS: JSON.stringify({ seed: 1, now: '2026-11-22T12:00:00.000Z', size: 'small', control: {} }),
  SANDBOX_DIRECTORY: { idFromName: () => 'directory', get: () => directory },
  SANDBOX: { idFromName: () => 'x', get: () => directory },
} as unknown as WorkerEnv

describe('a Durable Object and its storage', () => {
  it('stores a write before its answer, and nothing for reads until the next batch', async () => {
    const { storage, values, writes } = memoryStorage()
    const object = new SandboxObject({ storage }, env)
    const send = (method: string, path: string, body?: unknown) =>
      object.fetch(new Request(`http://sandbox.test${path}`, {
        method,
        headers: { authorization: 'Bearer atk_sandbox_admin', ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }))
    const layers = await (await send('GET', '/api/layers')).json()
    writes.length = 0
    for (let i = 0; i < 20; i++) expect((await send('GET', '/api/notifications?limit=5')).status).toBe(200)
    expect(writes, 'storage written by reads').toEqual([])

    const gone = layers.data[0].id
    expect((await send('DELETE', `/api/layers/${gone}`)).status).toBe(200)
    expect(values.get(`r:layers:${gone}`)).toEqual({ s: 0, v: null })
    // The reads' journal entries went with the write.
    const journal = [...values.keys()].filter((k) => k.startsWith('j:'))
    expect(journal).toHaveLength(22)
  })
})
