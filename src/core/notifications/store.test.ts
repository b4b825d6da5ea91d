import * as accounts from '../../../fixtures/accounts.js'
import { describe, expect, it } from 'vitest'
import { seedWorld } from '../seed/seed.js'
import { indexNotifications, toEntry } from './table.js'
import type { NotificationQuery } from './store.js'

const now = Date.parse('2026-11-22T12:00:00Z')
const rows = seedWorld({ accounts, seed: 3, now, notifications: 3000 }).notifications
const DAY = 86_400_000

const sorted = rows.slice().sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (b.id > a.id ? 1 : -1))

/** The obvious, slow answer the index must agree with. */
function bruteForce(clientId: string, q: NotificationQuery) {
  const hits = sorted
    .filter((r) => r.clientId === clientId)
    .filter(
      (r) =>
        (!q.types?.length || q.types.includes(r.type)) &&
        (!q.statuses?.length || q.statuses.includes(r.status)) &&
        (!q.assetIds?.length || q.assetIds.includes(r.asset._id)),
    )
    .filter((r) => Date.parse(r.createdAt) >= q.from && Date.parse(r.createdAt) <= q.to)
  return { ids: hits.slice(q.offset, q.offset + q.limit).map((r) => r.id), total: hits.length }
}

describe('notification index', () => {
  const index = indexNotifications(rows)
  const asset = rows[0].asset._id
  const queries: [string, Partial<NotificationQuery>][] = [
    ['everything', {}],
    ['one type', { types: ['geofence'] }],
    ['type and status', { types: ['geofence', 'ignition'], statuses: ['unreviewed'] }],
    ['status only', { statuses: ['reviewed', 'false_positive'] }],
    ['asset', { assetIds: [asset] }],
    ['asset and type', { assetIds: [asset, asset], types: ['speed_limit', 'geofence'] }],
    ['last 30 days', { from: now - 30 * DAY, to: now }],
    ['deep page', { offset: 1950, limit: 50 }],
    ['past the end', { offset: 10_000, limit: 50 }],
    ['a narrow window', { from: now - 2 * DAY, to: now - DAY, types: ['temperature'] }],
  ]
  it.each(queries)('agrees with a brute-force scan: %s', (_, partial) => {
    const q: NotificationQuery = { from: -Infinity, to: Infinity, offset: 0, limit: 50, ...partial }
    const { items, total } = index.query('cli_acme', q)
    expect({ ids: items.map((e) => e.n.id), total }).toEqual(bruteForce('cli_acme', q))
  })

  it('agrees with a brute-force scan over 400 random queries: merges, deep offsets, ranges, repeats', () => {
    let seed = 7
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const some = <T>(list: readonly T[], max: number) =>
      Array.from({ length: 1 + Math.floor(rand() * max) }, () => list[Math.floor(rand() * list.length)])
    const types = [
      'speed_limit',
      'geofence',
      'ignition',
      'lost_connection',
      'road_speed_limit',
      'sos_alarm',
      'temperature',
      'no_such_type',
    ]
    const assets = [...new Set(rows.map((r) => r.asset._id))]
    for (let i = 0; i < 400; i++) {
      const to = rand() < 0.5 ? Infinity : now - Math.floor(rand() * 50) * DAY
      const q: NotificationQuery = {
        types: rand() < 0.5 ? some(types, 4) : undefined,
        statuses: rand() < 0.5 ? some(['unreviewed', 'reviewed', 'false_positive'], 3) : undefined,
        assetIds: rand() < 0.3 ? some(assets, 3) : undefined,
        from: rand() < 0.5 ? -Infinity : to - Math.floor(1 + rand() * 40) * DAY,
        to,
        offset: Math.floor(rand() * (rand() < 0.5 ? 100 : 2000)),
        limit: 1 + Math.floor(rand() * 60),
      }
      const { items, total } = index.query('cli_acme', q)
      expect({ ids: items.map((e) => e.n.id), total }, JSON.stringify(q)).toEqual(bruteForce('cli_acme', q))
    }
  })

  it('keeps every list in order after status changes, and forks do not share writes', () => {
    const fork = index.fork()
    const before = fork.unreviewedCount('cli_acme')
    const target = fork.query('cli_acme', {
      statuses: ['unreviewed'],
      from: -Infinity,
      to: Infinity,
      offset: 0,
      limit: 5,
    }).items
    for (const e of target) fork.replace({ ...e, n: { ...e.n, status: 'reviewed' } })
    expect(fork.unreviewedCount('cli_acme')).toBe(before - 5)
    expect(index.unreviewedCount('cli_acme')).toBe(before)
    const reviewed = fork.query('cli_acme', {
      statuses: ['reviewed'],
      from: -Infinity,
      to: Infinity,
      offset: 0,
      limit: 10_000,
    }).items
    const times = reviewed.map((e) => e.t)
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    for (const e of target) expect(reviewed.some((r) => r.n.id === e.n.id)).toBe(true)
    expect(index.get(target[0].n.id)!.n.status).toBe('unreviewed')
  })

  it('adds in order and counts per client', () => {
    const fork = index.fork()
    const sample = rows.find((r) => r.clientId === 'cli_other')!
    fork.add(toEntry({ ...sample, id: 'f'.repeat(24), createdAt: new Date(now).toISOString() }))
    expect(fork.query('cli_other', { from: -Infinity, to: Infinity, offset: 0, limit: 1 }).items[0].n.id).toBe(
      'f'.repeat(24),
    )
    expect(fork.query('cli_acme', { from: -Infinity, to: Infinity, offset: 0, limit: 1 }).items[0].n.id).not.toBe(
      'f'.repeat(24),
    )
  })

  it('answers nothing for an unknown client', () => {
    expect(index.query('cli_ghost', { from: -Infinity, to: Infinity, offset: 0, limit: 50 })).toEqual({
      items: [],
      total: 0,
    })
    expect(index.unreviewedCount('cli_ghost')).toBe(0)
  })
})
