import { describe, expect, it } from 'vitest'
import { BODY_LIMIT, Journal, TEXT_LIMIT, cutText, utf8Length } from './journal.js'
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

describe('Journal bounds in bytes', () => {
  const exchange = (body: string) => ({ origin: 'http://x.test', request: { headers: new Headers({ 'content-type': 'application/json' }), body }, response: { headers: new Headers(), body: null } })

  it('cuts stored paths and queries at 2 KB', () => {
    const journal = new Journal()
    const e = journal.add({ ...request('/p'.repeat(3000)), query: '?q=' + 'x'.repeat(15_000) })
    expect(e.path.length).toBe(TEXT_LIMIT)
    expect(e.query.length).toBe(TEXT_LIMIT)
  })

  it('cuts bodies at 64 KB with truncated: true and the whole size', () => {
    const journal = new Journal()
    const id = journal.add(request('/big'), exchange('é'.repeat(BODY_LIMIT))).id
    const d = journal.get(id)!
    expect(d.request).toMatchObject({ truncated: true, size: BODY_LIMIT * 2 })
    expect(utf8Length(d.request.body!)).toBe(BODY_LIMIT)
    expect(journal.get(journal.add(request('/small'), exchange('{"a":1}')).id)!.request).toMatchObject({ body: '{"a":1}', truncated: false, size: 7 })
  })

  it('drops the oldest entries once its byte count passes the bound', () => {
    const journal = new Journal(1000, 1_048_576)
    for (let i = 0; i < 40; i++) journal.add(request(`/r${i}`), exchange('x'.repeat(60_000)))
    expect(journal.bytes).toBeLessThanOrEqual(1_048_576)
    expect(journal.size).toBeLessThan(40)
    expect(journal.list().at(-1)!.path).toBe('/r39')
    journal.clear()
    expect(journal.bytes).toBe(0)
  })

  it('cuts long header values at 2 KB and keeps at most about 16 KB of headers per side', () => {
    const journal = new Journal()
    const headers = new Headers(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-h${String(i).padStart(2, '0')}`, 'v'.repeat(5000)])))
    const id = journal.add(request('/h'), { origin: 'http://x.test', request: { headers, body: null }, response: { headers: new Headers(), body: null } }).id
    const kept = journal.get(id)!.request.headers
    expect(Object.values(kept).every((v) => v.length === TEXT_LIMIT)).toBe(true)
    expect(Object.keys(kept).length).toBeLessThan(20)
    expect(journal.bytes).toBeLessThan(20_000)
  })

  it('counts UTF-8 bytes and never splits a character when cutting', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4)
    expect(cutText('€'.repeat(20), 10)).toBe('€€€')
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
