import { describe, expect, it } from 'vitest'
import type { NotificationEntry } from './store.js'
import { RawJson } from '../http/reply.js'
import { PageWriter } from './page.js'
import { plainListPages } from './plain-store.js'

const entry = (id: string, status = 'unreviewed', extra: object = {}): NotificationEntry => ({
  n: { id, status, ...extra } as unknown as NotificationEntry['n'],
  clientId: 'cli_acme',
  t: 0,
  block: undefined,
  at: 0,
  len: 0,
})
const body = (r: RawJson) => JSON.parse(new TextDecoder().decode(r.text as Uint8Array))
const pagination = { page: 1, limit: 2, total: 2, totalPages: 1 }
const pages = new PageWriter()
/** One block of the writer's memory (page.ts). */
const BLOCK_SIZE = 256 * 1024
const listPage = pages.listPage.bind(pages)

describe('listPage', () => {
  it('writes the success envelope with the entries, the pagination and the count', () => {
    const page = listPage([entry('a'), entry('b')], pagination, 7)
    expect(body(page)).toEqual({
      status: 'success',
      data: {
        notifications: [
          { id: 'a', status: 'unreviewed' },
          { id: 'b', status: 'unreviewed' },
        ],
        pagination,
        unreviewedCount: 7,
      },
    })
  })

  it('is exactly JSON.stringify of the same body, non-ASCII text included', () => {
    const items = [
      entry('a', 'reviewed', { address: 'Av. Providencia 1234, Ñuñoa', name: 'Geocerca: ÁB·12 "x" \\ 😀' }),
      entry('b'),
    ]
    const text = new TextDecoder().decode(listPage(items, pagination, 3).text as Uint8Array)
    expect(text).toBe(
      JSON.stringify({
        status: 'success',
        data: { notifications: items.map((e) => e.n), pagination, unreviewedCount: 3 },
      }),
    )
    expect(
      new TextDecoder().decode(listPage([], { page: 1, limit: 20, total: 0, totalPages: 0 }, 0).text as Uint8Array),
    ).toBe(
      '{"status":"success","data":{"notifications":[],"pagination":{"page":1,"limit":20,"total":0,"totalPages":0},"unreviewedCount":0}}',
    )
  })

  it('writes each page from its entries: order, a replaced entry and the counts show', () => {
    const a = entry('a')
    const b = entry('b')
    expect(body(listPage([a, b], pagination, 1))).toEqual(body(listPage([a, b], pagination, 1)))
    // A replaced entry (a review) is a new object with its own bytes.
    const reviewed = entry('a', 'reviewed')
    expect(body(listPage([reviewed, b], pagination, 0)).data.notifications[0].status).toBe('reviewed')
    expect(body(listPage([a, b], pagination, 2)).data.unreviewedCount).toBe(2)
    expect(body(listPage([a, b], { ...pagination, total: 3, totalPages: 2 }, 1)).data.pagination.total).toBe(3)
    expect(body(listPage([b, a], pagination, 1)).data.notifications.map((n: { id: string }) => n.id)).toEqual([
      'b',
      'a',
    ])
  })

  it('keeps records apart across many pages (shared blocks never overlap)', () => {
    const many = Array.from({ length: 3000 }, (_, i) => entry(`n${i}`, 'reviewed', { pad: 'x'.repeat(i % 400) }))
    for (let i = 0; i < many.length; i += 50) listPage(many.slice(i, i + 50), pagination, 0)
    const all = body(listPage(many, pagination, 0)).data.notifications
    expect(all).toEqual(many.map((e) => e.n))
  })

  it('writes a page larger than its memory bound, the same bytes each time', () => {
    const small = new PageWriter(BLOCK_SIZE)
    const many = Array.from({ length: 2000 }, (_, i) => entry(`n${i}`, 'reviewed', { pad: 'é'.repeat(i % 300) }))
    for (let i = 0; i < many.length; i += 50) small.listPage(many.slice(i, i + 50), pagination, 0)
    const twice = [0, 1].map(() => new TextDecoder().decode(small.listPage(many, pagination, 0).text as Uint8Array))
    expect(twice[0]).toBe(twice[1])
    expect(twice[0]).toBe(plainListPages.listPage(many, pagination, 0).text)
  })

  it('reclaims its memory: past its bound for ten times over, new records are still kept and pages stay exact', () => {
    const small = new PageWriter(4 * BLOCK_SIZE)
    const text = (page: RawJson) => new TextDecoder().decode(page.text as Uint8Array)
    // Live: a page a client keeps asking for; every round also writes records never asked for again (dead).
    let live = [entry('live0'), entry('live1', 'reviewed', { address: 'Ñuñoa' })]
    // Each dead record is about 250 bytes: ten times the bound goes through.
    const written: NotificationEntry[] = []
    let records = 0
    let spilled = 0
    for (let round = 0; records * 250 < 10 * 4 * BLOCK_SIZE; round++) {
      const dead = Array.from({ length: 50 }, (_, i) =>
        entry(`r${round}-${i}`, 'reviewed', { pad: 'x'.repeat(200 + (i % 7)) }),
      )
      expect(text(small.listPage(dead, pagination, 0))).toBe(plainListPages.listPage(dead, pagination, 0).text)
      records += dead.length
      written.push(...dead)
      // Written for that page alone: never given a place in a block.
      spilled += dead.filter((e) => e.block === undefined).length
      // A review replaces a live entry: the new one has bytes of its own.
      if (round % 10 === 0) live = [entry('live0', round % 20 ? 'reviewed' : 'unreviewed'), live[1]]
      expect(text(small.listPage(live, pagination, 1))).toBe(plainListPages.listPage(live, pagination, 1).text)
    }
    // Past the bound, most new records are still kept (a page reads them, no second encoding);
    // an arena never reclaimed writes nine in ten of them (all past the first 1 MB) for one page only ...
    expect(spilled).toBeGreaterThan(0)
    expect(spilled).toBeLessThan(records * 0.6)
    const late = [entry('late0'), entry('late1', 'reviewed')]
    small.listPage(late, pagination, 0)
    expect(text(small.listPage(late, pagination, 0))).toBe(plainListPages.listPage(late, pagination, 0).text)
    // ... because blocks no page read lately were dropped, letting go of the bytes of most dead
    // records: the memory held stays within the bound.
    const released = written.filter((e) => e.block !== undefined && e.block.bytes === undefined)
    expect(released.length).toBeGreaterThan(records / 2)
    expect(small.arena.held).toBeLessThanOrEqual(5 * BLOCK_SIZE)
    expect(live.filter((e) => e.block?.bytes === undefined)).toEqual([])
  })
})
