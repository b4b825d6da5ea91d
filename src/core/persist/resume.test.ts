import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { createSandboxApp } from '../../apps/page-app.js'
import { routes } from '../../apps/route-table.js'
import { MemoryBackend } from './backend.js'
import { durableApp, fingerprintOf, resumeApp } from './resume.js'

const options = { seed: 3, now: '2026-11-22T12:00:00.000Z', size: 'small' as const, frozenClock: true, control: {} }
const create = (seededAt?: number) => createSandboxApp({ ...options, seededAt })

/** A backend whose puts land only when told: what a slow IndexedDB commit looks like. */
class HeldBackend extends MemoryBackend {
  held: (() => void)[] = []
  override put(entries: Map<string, unknown>) {
    return new Promise<void>((resolve) => this.held.push(() => void super.put(entries).then(resolve)))
  }
  release() {
    for (const go of this.held.splice(0)) go()
  }
}

describe("resuming a page's state", () => {
  it('names a state by the options it was made from, as saved states before this module named them', () => {
    // Saved states of earlier versions carry this text: a change here would start every page fresh.
    expect(fingerprintOf({ seed: 1, scenarios: [] })).toBe(
      '{"seed":1,"now":null,"size":null,"notifications":null,"scenarios":[]}',
    )
    // Fixtures by their collections: changed rows are replaced in the resumed world (below), not a new world.
    expect(fingerprintOf({ seed: 1, size: 'small', scenarios: [], fixtures: { layers: [], vehicleTypes: [] } })).toBe(
      '{"seed":1,"now":null,"size":"small","notifications":null,"scenarios":[],"fixtures":"layers,vehicleTypes"}',
    )
  })

  it('resumes with changed fixture rows: that collection replaced, the rest of the state kept', async () => {
    const types = JSON.parse(readFileSync('fixtures/examples/vehicleTypes.json', 'utf8')) as {
      id: string
      name: string
      group: string
    }[]
    const withTypes = (rows: { id: string; name: string; group: string }[]) => (seededAt?: number) =>
      createSandboxApp({ ...options, seededAt, fixtures: { vehicleTypes: rows } })
    const backend = new MemoryBackend()
    const first = await resumeApp(withTypes(types), backend, 'a', { vehicleTypes: types })
    const layers = first.sandbox.world.tables.layers
    await layers.remove(layers.all()[0].id)
    await first.persisted!.flush()
    const edited = types.map((t, i) => (i === 0 ? { ...t, name: 'Edited under hot update' } : t))
    const again = await resumeApp(withTypes(edited), backend, 'a', { vehicleTypes: edited })
    expect(again.resumed).toBe(true)
    expect(again.sandbox.world.tables.layers.size).toBe(layers.size)
    expect(again.sandbox.world.tables.vehicleTypes.all().map((t) => t.name)).toContain('Edited under hot update')
    await again.persisted!.flush()
    // Stored: a third start with the same rows finds them, and does not replace again.
    const third = await resumeApp(withTypes(edited), backend, 'a', { vehicleTypes: edited })
    expect(third.sandbox.world.tables.vehicleTypes.all().map((t) => t.name)).toContain('Edited under hot update')
    expect(third.sandbox.world.tables.layers.size).toBe(layers.size)
  })

  it('resumes a state made from the same options, starts fresh from other ones', async () => {
    const backend = new MemoryBackend()
    const first = await resumeApp(create, backend, 'a')
    expect(first.resumed).toBe(false)
    await first.sandbox.world.tables.layers.remove(first.sandbox.world.tables.layers.all()[0].id)
    await first.persisted!.flush()
    const again = await resumeApp(create, backend, 'a')
    expect(again.resumed).toBe(true)
    expect(again.sandbox.world.tables.layers.size).toBe(first.sandbox.world.tables.layers.size)
    const other = await resumeApp(create, backend, 'b')
    expect(other.resumed).toBe(false)
    expect(other.sandbox.world.tables.layers.size).toBe(first.sandbox.world.tables.layers.size + 1)
  })

  it("holds a write's answer until the backend has its changes; a read's answer does not wait", async () => {
    const backend = new HeldBackend()
    const opened = resumeApp(create, backend, 'a')
    await new Promise((r) => setTimeout(r, 0))
    backend.release()
    const state = await opened
    const app = durableApp({ ...options, routes }, Promise.resolve(state))
    const meta = { clientAddress: 'page' }
    const headers = { authorization: 'Bearer atk_sandbox_admin', 'content-type': 'application/json' }
    const read = await app.fetch(new Request('http://x/api/layers', { headers }), meta)
    expect(read.status).toBe(200)

    let answered = false
    const id = state.sandbox.world.tables.layers.all()[0].id
    const write = app
      .fetch(new Request(`http://x/api/layers/${id}`, { method: 'DELETE', headers }), meta)
      .then((r) => ((answered = true), r))
    // The write's changes are on their way to the backend; the answer is not out yet.
    await vi.waitFor(() => expect(backend.held.length).toBeGreaterThan(0))
    await new Promise((r) => setTimeout(r, 0))
    expect(answered).toBe(false)
    backend.release()
    expect((await write).status).toBeLessThan(300)
    expect([...backend.values.keys()]).toContain(`r:layers:${id}`)
    state.persisted!.close()
  })
})
