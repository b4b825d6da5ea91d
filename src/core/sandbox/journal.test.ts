import { describe, expect, it } from 'vitest'
import { Journal } from './journal.js'
import { Outbox } from './outbox.js'

const at = '2026-11-22T12:00:00.000Z'
const request = (path: string) => ({ method: 'GET', path, query: '', status: 200, faults: [], durationMs: 1, at })

describe('Journal', () => {
  it('is a bounded ring, newest last, with ids that keep counting', () => {
    const journal = new Journal(3)
    for (let i = 1; i <= 5; i++) journal.add(request(`/r${i}`))
    expect(journal.list().map((e) => [e.id, e.path])).toEqual([[3, '/r3'], [4, '/r4'], [5, '/r5']])
    journal.clear()
    expect(journal.list()).toEqual([])
    expect(journal.add(request('/r6')).id).toBe(6)
  })

  it('hands out copies: callers cannot change what it holds', () => {
    const journal = new Journal()
    journal.add(request('/a'))
    journal.list().pop()
    expect(journal.list()).toHaveLength(1)
  })

  it('loads entries (snapshots) keeping the newest capacity, and continues after the highest id', () => {
    const journal = new Journal(2)
    journal.load([{ id: 7, ...request('/a') }, { id: 9, ...request('/b') }, { id: 8, ...request('/c') }])
    expect(journal.list().map((e) => e.id)).toEqual([9, 8])
    expect(journal.add(request('/d')).id).toBe(10)
  })
})

describe('Outbox', () => {
  it('always carries all seven fields, null where one does not apply', () => {
    const outbox = new Outbox()
    const e = outbox.add('email', at, { to: 'a@b.test' })
    expect(e).toEqual({ id: 'out_1', kind: 'email', to: 'a@b.test', subject: null, token: null, ref: null, at })
  })

  it('after a load continues after the highest numbered id, never reusing one', () => {
    const outbox = new Outbox()
    outbox.load([{ id: 'out_5', kind: 'message', to: null, subject: null, token: null, ref: null, at }])
    expect(outbox.add('email', at, {}).id).toBe('out_6')
    outbox.load([])
    expect(outbox.add('email', at, {}).id).toBe('out_1')
  })
})
