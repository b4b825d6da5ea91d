import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupSandboxServer } from '../src/adapters/node/index.js'
import type { FixtureRows } from '../src/core/store/fixtures.js'
import { json } from './support/client.js'
import { runtimes } from './support/runtimes.js'
import { useSandbox } from './support/sandbox.js'

const ADMIN = { authorization: 'Bearer atk_sandbox_admin' }
const layer = { id: 'lay_fixture', clientId: 'cli_acme', name: 'Depot from a fixture', kind: 'zone' as const, color: '#112233', visible: true, createdAt: '2026-01-01T00:00:00.000Z' }
const notification = {
  id: '6740000000000000000000aa', clientId: 'cli_acme', type: 'sos_alarm' as const, name: 'SOS: KXBT42',
  alertTrigger: { _id: 'a'.repeat(24), name: 'SOS flota', label: 'SOS' },
  asset: { _id: 'b'.repeat(24), name: 'Camión 1', plate: 'KXBT42', icon: { id: 'truck', color: '#ff0000' } },
  location: '-36.827,-73.0503', address: 'Av. Colón 123, Concepción', status: 'unreviewed' as const,
  createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z', calculatorId: 1,
}
const fixtures: FixtureRows = { layers: [layer], notifications: [notification] }

describe.each(runtimes)('fixtures shape every world through $name', (runtime) => {
  const rt = useSandbox(runtime, { fixtures })

  const layers = async (headers: Record<string, string> = {}) => (await (await rt.fetch('/api/layers', { headers: { ...ADMIN, ...headers } })).json()).data.map((l: { id: string }) => l.id)
  const notifications = async (headers: Record<string, string> = {}) =>
    (await (await rt.fetch('/api/notifications?startDate=2026-01-01', { headers: { ...ADMIN, ...headers } })).json()).data.notifications.map((n: { id: string }) => n.id)
  const reset = async (body: object, headers: Record<string, string> = {}) => expect((await rt.fetch('/__sandbox/reset', json(body, headers))).status).toBe(200)

  it('the default world', async () => {
    expect(await layers()).toEqual(['lay_fixture'])
    expect(await notifications()).toEqual([notification.id])
  })

  it('an x-sandbox-id world, from its first request', async () => {
    expect(await layers({ 'x-sandbox-id': 'fixtures-a' })).toEqual(['lay_fixture'])
    expect(await notifications({ 'x-sandbox-id': 'fixtures-a' })).toEqual([notification.id])
  })

  it('every reset, with or without a new seed, in the default and in an isolated world', async () => {
    const del = await rt.fetch('/api/layers/lay_fixture', { method: 'DELETE', headers: ADMIN })
    expect(del.status).toBeLessThan(300)
    expect(await layers()).toEqual([])
    await reset({})
    expect(await layers()).toEqual(['lay_fixture'])
    await reset({ seed: 99 })
    expect(await layers()).toEqual(['lay_fixture'])
    expect(await notifications()).toEqual([notification.id])
    await reset({ seed: 5 }, { 'x-sandbox-id': 'fixtures-b' })
    expect(await layers({ 'x-sandbox-id': 'fixtures-b' })).toEqual(['lay_fixture'])
  })

  it('collections not in the fixtures stay seeded', async () => {
    const res = await rt.fetch('/api/v1/technician/list', { headers: ADMIN })
    expect((await res.json()).data.length).toBeGreaterThan(0)
  })
})

describe('fleet-sandbox/node with a fixtures option', () => {
  const sandbox = setupSandboxServer({ fixtures: { layers: [layer] } })
  beforeAll(sandbox.listen)
  afterAll(sandbox.close)

  it('shapes the world after every reset and in isolated worlds', async () => {
    const ids = async (headers: Record<string, string> = {}) => (await (await fetch('http://api.test/api/layers', { headers: { ...ADMIN, ...headers } })).json()).data.map((l: { id: string }) => l.id)
    expect(await ids()).toEqual(['lay_fixture'])
    await fetch('http://api.test/api/layers/lay_fixture', { method: 'DELETE', headers: ADMIN })
    expect(await ids()).toEqual([])
    await sandbox.reset()
    expect(await ids()).toEqual(['lay_fixture'])
    expect(await ids({ 'x-sandbox-id': 'node-fixtures' })).toEqual(['lay_fixture'])
  })

  it('refuses a bad fixture where the suite sets the sandbox up, naming collection, record and rule', () => {
    expect(() => setupSandboxServer({ fixtures: { layers: [{ ...layer, kind: 'circle' as never }] } })).toThrow('layers.0.kind: must be one of')
    expect(() => setupSandboxServer({ fixtures: { lairs: [] } as never })).toThrow('fixtures: lairs is no collection; collections: notifications, clients')
  })
})
