import { describe, expect, it } from 'vitest'
import type { NotificationEntry } from './store.js'
import { RawJson } from '../http/reply.js'
import { PageCache } from './page-cache.js'

const cache = new PageCache()
const listPage = cache.listPage.bind(cache)

const entry = (id: string, status = 'unreviewed'): NotificationEntry => ({ n: { id, status } as unknown as NotificationEntry['n'], clientId: 'cli_acme', t: 0 })
const body = (r: RawJson) => JSON.parse(new TextDecoder().decode(r.text as Uint8Array))
const pagination = { page: 1, limit: 2, total: 2, totalPages: 1 }

describe('listPage', () => {
  it('writes the success envelope with the entries, the pagination and the count', () => {
    const page = listPage([entry('a'), entry('b')], pagination, 7)
    expect(body(page)).toEqual({ status: 'success', data: { notifications: [{ id: 'a', status: 'unreviewed' }, { id: 'b', status: 'unreviewed' }], pagination, unreviewedCount: 7 } })
  })

  it('answers the same entries again from its cache, and anything that differs anew', () => {
    const a = entry('a')
    const b = entry('b')
    const first = listPage([a, b], pagination, 1)
    expect(listPage([a, b], pagination, 1).text).toBe(first.text)
    // A replaced entry (a review) is a new object: its page is written again.
    const reviewed = entry('a', 'reviewed')
    expect(body(listPage([reviewed, b], pagination, 0)).data.notifications[0].status).toBe('reviewed')
    expect(body(listPage([a, b], pagination, 2)).data.unreviewedCount).toBe(2)
    expect(body(listPage([a, b], { ...pagination, total: 3, totalPages: 2 }, 1)).data.pagination.total).toBe(3)
    expect(body(listPage([b, a], pagination, 1)).data.notifications.map((n: { id: string }) => n.id)).toEqual(['b', 'a'])
  })

  it('keeps a bounded number of pages', () => {
    const a = entry('a')
    const first = listPage([a], pagination, 0)
    for (let i = 1; i <= 100; i++) listPage([a], pagination, i)
    const again = listPage([a], pagination, 0)
    expect(again.text).not.toBe(first.text)
    expect(body(again)).toEqual(body(first))
  })
})
