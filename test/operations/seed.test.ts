import * as accounts from '../../fixtures/accounts.js'
import { describe, expect, it } from 'vitest'
import { seedWorld } from '../../src/core/seed/seed.js'
import { World } from '../../src/core/store/world.js'

const options = { accounts, seed: 7, now: Date.parse('2026-11-22T12:00:00.000Z'), size: 'small' as const }
const operations = [
  'vehicleTypes',
  'layers',
  'gpsDetails',
  'subscriptionPlans',
  'serviceProviders',
  'technicians',
  'visitDetails',
  'visitHistory',
  'quotes',
  'threads',
  'messages',
  'whatsappStatus',
] as const

describe('operations seed', () => {
  const world = seedWorld(options)

  it('is byte-identical for the same seed and now, and differs for another seed', () => {
    const again = seedWorld(options)
    const other = seedWorld({ ...options, seed: 8 })
    for (const name of operations) expect(JSON.stringify(again[name])).toBe(JSON.stringify(world[name]))
    expect(JSON.stringify(other.technicians)).not.toBe(JSON.stringify(world.technicians))
  })

  it('fills every collection with tens to a few hundred rows that load into the store', async () => {
    for (const name of operations) {
      expect(world[name].length, name).toBeGreaterThan(0)
      expect(world[name].length, name).toBeLessThan(500)
    }
    const loaded = await World.fromRows(world)
    for (const name of operations) expect(loaded.tables[name].size, name).toBe(world[name].length)
  })

  it('dates nothing after now', () => {
    const now = new Date(options.now).toISOString()
    for (const v of world.visitHistory) expect(v.datetime <= now).toBe(true)
    for (const m of world.messages) expect(m.sentAt <= now).toBe(true)
    for (const q of world.quotes) expect(q.createdAt <= now).toBe(true)
    for (const v of world.visitDetails) for (const i of v.images) expect(i.uploadedAt <= now).toBe(true)
  })

  it("gives visits a history whose ids resolve and whose last values are the visit's", () => {
    const technicians = new Set(world.technicians.map((t) => t.id))
    const providers = new Set(world.serviceProviders.map((p) => p.id))
    for (const visit of world.visitDetails) {
      const history = world.visitHistory.filter((h) => h.visit_detail_id === visit.id)
      expect(history[0].action).toBe('created')
      const times = history.map((h) => h.datetime)
      expect([...times].sort()).toEqual(times)
      let technician: unknown = null
      let status: unknown = null
      for (const h of history) {
        if (h.change.technician_id) technician = h.change.technician_id.new
        if (h.change.status) status = h.change.status.new
        if (h.change.service_provider_id) expect(providers.has(h.change.service_provider_id.new as string)).toBe(true)
        if (h.change.image_id) expect(visit.images.some((i) => i.id === h.change.image_id.new)).toBe(true)
      }
      expect(technician).toBe(visit.technicianId)
      if (technician) expect(technicians.has(technician as string)).toBe(true)
      expect(status).toBe(visit.status)
    }
  })

  it('seeds threads open and unassigned, assigned to the admin, to another user, and closed', () => {
    const acme = world.threads.filter((t) => t.clientId === 'cli_acme')
    expect(acme.some((t) => t.status === 'open' && t.assignedTo === null)).toBe(true)
    expect(acme.some((t) => t.status === 'open' && t.assignedTo === 'usr_acme_admin')).toBe(true)
    expect(acme.some((t) => t.status === 'open' && t.assignedTo === 'usr_acme_operator')).toBe(true)
    expect(acme.some((t) => t.status === 'closed')).toBe(true)
    for (const t of world.threads)
      expect(world.messages.filter((m) => m.threadId === t.id).at(-1)?.sentAt).toBe(t.lastMessageAt)
  })

  it('gives GPS details UUID ids and subscription plans integer ids', () => {
    for (const g of world.gpsDetails)
      expect(g.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    for (const p of world.subscriptionPlans) expect(Number.isInteger(p.id)).toBe(true)
  })
})
