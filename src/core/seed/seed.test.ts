import * as accounts from '../../../fixtures/accounts.js'
import { describe, expect, it } from 'vitest'
import { tableSchemas, type TableName } from '../store/collections.js'
import { notificationSchema } from '../notifications/model.js'
import { formatRut, rutCheckDigit } from './chile.js'
import { seedWorld } from './seed.js'

const now = Date.parse('2026-11-22T12:00:00Z')

describe('seed', () => {
  it('is byte-identical for the same seed and now', () => {
    expect(JSON.stringify(seedWorld({ accounts, seed: 7, now }))).toBe(
      JSON.stringify(seedWorld({ accounts, seed: 7, now })),
    )
  })

  it('differs with the seed, and dates move with now', () => {
    const a = seedWorld({ accounts, seed: 7, now, size: 'small' })
    const b = seedWorld({ accounts, seed: 8, now, size: 'small' })
    expect(JSON.stringify(a.notifications)).not.toBe(JSON.stringify(b.notifications))
    const later = seedWorld({ accounts, seed: 7, now: now + 86_400_000, size: 'small' })
    expect(Date.parse(later.notifications[0].createdAt) - Date.parse(a.notifications[0].createdAt)).toBe(86_400_000)
  })

  it('never reads the real time', () => {
    const past = Date.parse('2001-01-01T00:00:00Z')
    const rows = seedWorld({ accounts, seed: 1, now: past, size: 'small' })
    const json = JSON.stringify(rows)
    for (const m of json.matchAll(/"(\d{4})-\d{2}-\d{2}T/g)) expect(Number(m[1])).toBeLessThanOrEqual(2001)
  })

  it('sizes: medium has about 2,000 notifications per client over 60 days and 50 assets each', () => {
    const rows = seedWorld({ accounts, seed: 1, now })
    const acme = rows.notifications.filter((n) => n.clientId === 'cli_acme')
    expect(acme).toHaveLength(2000)
    expect(rows.assets.filter((a) => a.clientId === 'cli_acme')).toHaveLength(50)
    for (const n of acme) expect(now - Date.parse(n.createdAt)).toBeLessThanOrEqual(60 * 86_400_000)
    expect(new Set(rows.notifications.map((n) => n.id)).size).toBe(rows.notifications.length)
    expect(
      seedWorld({ accounts, seed: 1, now, notifications: 10 }).notifications.filter((n) => n.clientId === 'cli_acme'),
    ).toHaveLength(10)
  })

  // The first sandbox loads seeded rows without re-validating them (src/core/sandbox/sandbox.ts): they
  // must already be what the schemas output.
  it.each([
    [1, 'small'],
    [7, 'medium'],
    [3, 'small'],
  ] as const)('seed %i, %s: every row is what its schema outputs', (seed, size) => {
    const rows = seedWorld({ accounts, seed, now, size })
    for (const name of Object.keys(tableSchemas) as TableName[]) {
      for (const row of rows[name])
        expect(tableSchemas[name].parse(row), `${name} ${(row as { id: string }).id}`).toStrictEqual(row)
    }
    const withClient = notificationSchema.extend({ clientId: notificationSchema.shape.id })
    for (const n of rows.notifications.slice(0, 500)) expect(withClient.parse(n)).toStrictEqual(n)
  })

  it('writes valid Chilean RUTs', () => {
    expect(rutCheckDigit(12_345_678)).toBe('5')
    expect(formatRut(76_123_456)).toBe('76.123.456-0')
    expect(rutCheckDigit(11_111_111)).toBe('1')
  })
})
