import * as accounts from '../../fixtures/accounts.js'
import { describe, expect, it } from 'vitest'
import { seedWorld } from '../../src/core/seed/seed.js'
import { pageInfo } from '../../src/core/http/pagination.js'
import { RawJson } from '../../src/core/http/reply.js'
import { indexNotifications, toEntry } from '../../src/core/notifications/table.js'
import { notificationStatuses, notificationTypes } from '../../src/core/notifications/model.js'
import type {
  NotificationEntry,
  NotificationQuery,
  NotificationStore,
} from '../../src/core/notifications/notification-store.js'
import { PageWriter } from '../../src/core/notifications/page.js'
import { PlainNotifications, plainListPages } from '../../src/core/notifications/plain-store.js'
import { notificationEntry } from '../../src/core/notifications/store.js'
import { generator } from '../support/generator.js'

/**
 * The tuned index (sorted lists, heap merge, bisection past 256, copy-on-write forks) and the
 * tuned page writer (shared byte blocks, the oldest dropped past their bound) against their plain
 * versions: the same random writes, forks and queries on both, every answer compared. A
 * failure names its seed and step; `STORE_SEED=n` replays one seed.
 */
const SEEDS = process.env.STORE_SEED ? [Number(process.env.STORE_SEED)] : [1, 2, 3]
const STEPS = 3_000
const now = Date.parse('2026-11-22T12:00:00Z')
const rows = seedWorld({ accounts, seed: 7, now, notifications: 800 }).notifications

type Pair = { tuned: NotificationStore; plain: NotificationStore }

const ids = (entries: readonly NotificationEntry[]) =>
  entries.map((e) => `${e.n.id}:${e.n.type}:${e.n.status}:${e.n.asset._id}`)
const text = (body: RawJson) => (typeof body.text === 'string' ? body.text : new TextDecoder().decode(body.text))

function run(seed: number): void {
  const r = generator(seed)
  const first: Pair = { tuned: indexNotifications(rows), plain: new PlainNotifications() }
  for (const row of rows) first.plain.add(toEntry(row))
  const pairs = [first]
  // A small bound, so pages also meet records whose block was dropped.
  const pages = new PageWriter(64 * 1024)
  const clients = [...new Set(rows.map((row) => row.clientId)), 'cli_new']
  const assets = [...new Set(rows.map((row) => row.asset))].slice(0, 6)
  const newAsset = { ...assets[0], _id: 'f'.repeat(24) }
  const times = [...new Set(rows.map((row) => Date.parse(row.createdAt)))]
  let made = 0

  const sameAnswers = (pair: Pair, clientId: string, q: NotificationQuery, step: number) => {
    const where = `seed ${seed}, step ${step}, ${clientId} ${JSON.stringify(q, (_, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))}`
    const tuned = pair.tuned.query(clientId, q)
    const plain = pair.plain.query(clientId, q)
    expect(tuned.total, where).toBe(plain.total)
    expect(ids(tuned.items), where).toEqual(ids(plain.items))
    const count = pair.plain.unreviewedCount(clientId)
    expect(pair.tuned.unreviewedCount(clientId), where).toBe(count)
    const info = pageInfo(Math.floor(q.offset / q.limit) + 1, q.limit, plain.total)
    expect(text(pages.listPage(tuned.items, info, count)), where).toBe(
      text(plainListPages.listPage(plain.items, info, count)),
    )
  }

  for (let step = 0; step < STEPS; step++) {
    const pair = r.pick(pairs)
    const roll = r.next()
    if (roll < 0.03 && pairs.length < 8) {
      pairs.push({ tuned: pair.tuned.fork(), plain: pair.plain.fork() })
    } else if (roll < 0.2) {
      // A new notification, often at a time others have (ties sort by id).
      const asset = r.next() < 0.2 ? newAsset : r.pick(assets)
      const t = r.next() < 0.5 ? r.pick(times) : now - r.int(90 * 86_400_000)
      const id = `${r.int(16).toString(16)}${(made++).toString(16).padStart(23, '0')}`
      const n = {
        ...rows[0],
        id,
        type: r.pick(notificationTypes),
        status: r.pick(notificationStatuses),
        asset,
        createdAt: new Date(t).toISOString(),
      }
      const { clientId: _, ...record } = n
      const e = notificationEntry(record, r.pick(clients), t)
      pair.tuned.add(e)
      pair.plain.add(e)
    } else if (roll < 0.25) {
      // A removal (a provider state, a rewind of an insert): out of every list, the count follows.
      const gone = r.pick(pair.plain.all())
      if (gone) {
        expect(pair.tuned.remove(gone.n.id)?.n.id, `seed ${seed}, step ${step}: remove`).toBe(gone.n.id)
        pair.plain.remove(gone.n.id)
      }
      expect(pair.tuned.remove('no-such-id')).toBeUndefined()
    } else if (roll < 0.45) {
      // A review, or another type or asset: the same record in other lists.
      const prev = r.pick(pair.plain.all())
      const n = {
        ...prev.n,
        status: r.pick(notificationStatuses),
        ...(r.next() < 0.3 ? { type: r.pick(notificationTypes) } : {}),
        ...(r.next() < 0.2 ? { asset: r.pick(assets) } : {}),
      }
      const next = notificationEntry(n, prev.clientId, prev.t)
      pair.tuned.replace(next)
      pair.plain.replace(next)
    } else {
      const from = r.next() < 0.4 ? -Infinity : r.pick(times) - r.int(3) * 86_400_000
      const to = r.next() < 0.4 ? Infinity : from + r.int(40) * 86_400_000
      const limit = 1 + r.int(60)
      // Deep offsets too: past 256 the tuned merge seeks by bisection.
      const offset = r.next() < 0.35 ? 200 + r.int(500) : r.int(3) * limit
      const q: NotificationQuery = {
        types: r.some([...notificationTypes, 'no-such-type']),
        statuses: r.some([...notificationStatuses, 'archived']),
        assetIds: r.some([...assets.map((a) => a._id), newAsset._id, 'a'.repeat(24)]),
        from,
        to,
        offset,
        limit,
      }
      sameAnswers(pair, r.pick(clients), q, step)
    }
    if (step % 500 === 0) {
      for (const p of pairs) {
        expect(ids(p.tuned.all()), `seed ${seed}, step ${step}: all()`).toEqual(ids(p.plain.all()))
        expect(p.tuned.size, `seed ${seed}, step ${step}: size`).toBe(p.plain.size)
      }
    }
  }
}

describe('the tuned notification index and page writer answer as the plain ones', () => {
  it.each(SEEDS)(
    'through 3,000 random writes, removals, forks and queries, seed %i',
    (seed) => {
      run(seed)
    },
    120_000,
  ) // a slow, shared machine: the plain store sorts everything on every query
})
