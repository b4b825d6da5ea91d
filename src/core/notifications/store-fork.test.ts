import * as accounts from '../../../fixtures/accounts.js'
import { describe, expect, it } from 'vitest'
import { seedWorld } from '../seed/seed.js'
import type { NotificationEntry, NotificationIndex, NotificationQuery } from './store.js'
import { indexNotifications, toEntry } from './table.js'

const now = Date.parse('2026-11-22T12:00:00Z')
const rows = seedWorld({ accounts, seed: 5, now, notifications: 1500 }).notifications
const everything: NotificationQuery = { from: -Infinity, to: Infinity, offset: 0, limit: 10_000 }

/** What a reader can observe of an index: every list a query can reach, and the counts. */
function observe(index: NotificationIndex) {
  const ids = (q: Partial<NotificationQuery>) =>
    index.query('cli_acme', { ...everything, ...q }).items.map((e) => `${e.n.id}:${e.n.status}`)
  const asset = rows[0].asset._id
  return {
    all: ids({}),
    unreviewed: ids({ statuses: ['unreviewed'] }),
    reviewed: ids({ statuses: ['reviewed'] }),
    asset: ids({ assetIds: [asset] }),
    count: index.unreviewedCount('cli_acme'),
    size: index.size,
  }
}

const review = (index: NotificationIndex, e: NotificationEntry, status: 'reviewed' | 'unreviewed') =>
  index.replace({ n: { ...e.n, status }, clientId: e.clientId, t: e.t, block: undefined, at: 0, len: 0 })

describe('notification index forks (copy on first write)', () => {
  it('a write on either side of a fork is seen by that side only', () => {
    const base = indexNotifications(rows)
    const pristine = observe(base)
    const a = base.fork()
    const b = base.fork()
    const [first, second] = a.query('cli_acme', { ...everything, statuses: ['unreviewed'], limit: 2 }).items
    review(a, first, 'reviewed')
    expect(observe(base)).toEqual(pristine)
    expect(observe(b)).toEqual(pristine)
    expect(a.unreviewedCount('cli_acme')).toBe(pristine.count - 1)
    expect(a.get(first.n.id)!.n.status).toBe('reviewed')

    // The parent writes after forking: its forks keep what they had.
    review(base, second, 'reviewed')
    expect(observe(b)).toEqual(pristine)
    expect(a.get(second.n.id)!.n.status).toBe('unreviewed')
    expect(base.get(first.n.id)!.n.status).toBe('unreviewed')
  })

  it('a fork of a fork is independent of both', () => {
    const base = indexNotifications(rows)
    const a = base.fork()
    const target = a.query('cli_acme', { ...everything, statuses: ['unreviewed'], limit: 1 }).items[0]
    review(a, target, 'reviewed')
    const seenByA = observe(a)
    const c = a.fork()
    review(c, c.get(target.n.id)!, 'unreviewed')
    c.add(toEntry({ ...rows[0], clientId: 'cli_acme', id: 'a'.repeat(24), createdAt: new Date(now).toISOString() }))
    expect(observe(a)).toEqual(seenByA)
    expect(c.size).toBe(a.size + 1)
    expect(c.unreviewedCount('cli_acme')).toBe(
      a.unreviewedCount('cli_acme') + 1 + Number(rows[0].status === 'unreviewed'),
    )
  })

  it('keeps unreviewedCount equal to a count of the unreviewed list through writes', () => {
    const index = indexNotifications(rows).fork()
    const some = index.query('cli_acme', { ...everything, limit: 40 }).items
    some.forEach((e, i) => review(index, e, i % 2 ? 'reviewed' : 'unreviewed'))
    const unreviewed = index.query('cli_acme', { ...everything, statuses: ['unreviewed'] }).total
    expect(index.unreviewedCount('cli_acme')).toBe(unreviewed)
  })

  it('serves a deep page of one list as a slice, in order', () => {
    const index = indexNotifications(rows)
    const all = index.query('cli_acme', everything).items.map((e) => e.n.id)
    const deep = index.query('cli_acme', { ...everything, offset: 1200, limit: 50 })
    expect(deep.items.map((e) => e.n.id)).toEqual(all.slice(1200, 1250))
    expect(deep.total).toBe(all.length)
    expect(index.query('cli_acme', { ...everything, offset: all.length, limit: 50 }).items).toEqual([])
  })
})
