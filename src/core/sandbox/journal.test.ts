import { describe, expect, it } from 'vitest'
import { BODY_LIMIT, Journal, TEXT_LIMIT, cutText, utf8Length } from './journal.js'
import { Outbox } from './outbox.js'

const at = '2026-11-22T12:00:00.000Z'
const request = (path: string) => ({ method: 'GET', path, query: '', status: 200, faults: [], durationMs: 1, at })

describe('Journal', () => {
  it('is a bounded ring, newest last, with ids that keep counting', () => {
    const journal = new Journal(3)
    for (let i = 1; i <= 5; i++) journal.add(request(`/r${i}`))
    expect(journal.list().map((e) => [e.id, e.path])).toEqual([
      [3, '/r3'],
      [4, '/r4'],
      [5, '/r5'],
    ])
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
    journal.load([
      { id: 7, ...request('/a') },
      { id: 9, ...request('/b') },
      { id: 8, ...request('/c') },
    ])
    expect(journal.list().map((e) => e.id)).toEqual([9, 8])
    expect(journal.add(request('/d')).id).toBe(10)
  })
})

describe('Journal bounds in bytes', () => {
  const exchange = (body: string) => ({
    origin: 'http://x.test',
    request: { headers: new Headers({ 'content-type': 'application/json' }), body },
    response: { headers: new Headers(), body: null },
  })

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
    expect(journal.get(journal.add(request('/small'), exchange('{"a":1}')).id)!.request).toMatchObject({
      body: '{"a":1}',
      truncated: false,
      size: 7,
    })
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
    const headers = new Headers(
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-h${String(i).padStart(2, '0')}`, 'v'.repeat(5000)])),
    )
    const id = journal.add(request('/h'), {
      origin: 'http://x.test',
      request: { headers, body: null },
      response: { headers: new Headers(), body: null },
    }).id
    const kept = journal.get(id)!.request.headers
    expect(Object.keys(kept).length).toBeGreaterThan(0)
    expect(Object.keys(kept).length).toBeLessThan(20)
    expect(Object.values(kept).filter((v) => v.length !== TEXT_LIMIT)).toEqual([])
    expect(journal.bytes).toBeLessThan(20_000)
  })

  it('keeps headers as received pairs and reads them as a Headers object lists them; long or many are cut', () => {
    const journal = new Journal()
    const pairs = ['Content-Type', 'application/json', 'X-Trace', 'a', 'x-trace', 'b', 'Cookie', 'a=1', 'cookie', 'b=2']
    const id = journal.add(request('/p'), {
      origin: 'http://x.test',
      request: { headers: pairs, body: null },
      response: { headers: { 'content-type': 'text/plain' }, body: 'hi' },
    }).id
    const d = journal.get(id)!
    expect(d.request.headers).toEqual({ 'content-type': 'application/json', 'x-trace': 'a, b', cookie: 'a=1; b=2' })
    expect(d.response).toMatchObject({ headers: { 'content-type': 'text/plain' }, body: 'hi', size: 2 })
    const long = Array.from({ length: 20 }, (_, i) => [`X-H${i}`, 'v'.repeat(5000)]).flat()
    const cut = journal.get(
      journal.add(request('/q'), {
        origin: 'http://x.test',
        request: { headers: long, body: null },
        response: { headers: {}, body: null },
      }).id,
    )!
    expect(Object.keys(cut.request.headers).length).toBeGreaterThan(0)
    expect(Object.keys(cut.request.headers).length).toBeLessThan(20)
    expect(Object.values(cut.request.headers).filter((v) => v.length !== TEXT_LIMIT)).toEqual([])
    expect(journal.bytes).toBeLessThan(25_000)
  })

  it('keeps a body source, not its bytes, and writes it only when an entry is read', () => {
    const journal = new Journal()
    let writes = 0
    const source = (text: string) => ({
      size: utf8Length(text),
      bytes: () => (writes++, new TextEncoder().encode(text)),
    })
    const small = journal.add(request('/s'), {
      origin: 'http://x.test',
      request: { headers: [], body: null },
      response: { headers: {}, body: source('{"a":1}') },
    }).id
    const big = journal.add(request('/b'), {
      origin: 'http://x.test',
      request: { headers: [], body: null },
      response: { headers: {}, body: source('x'.repeat(BODY_LIMIT + 10)) },
    }).id
    // The big one is cut when added: its first 64 KB are all it keeps.
    expect(writes).toBe(1)
    expect(journal.get(small)!.response).toMatchObject({ body: '{"a":1}', truncated: false, size: 7 })
    expect(writes).toBe(2)
    expect(journal.get(big)!.response).toMatchObject({ truncated: true, size: BODY_LIMIT + 10 })
    expect(journal.get(big)!.response.body).toHaveLength(BODY_LIMIT)
    // Counted at its full size: the bound holds whatever the source keeps.
    expect(journal.bytes).toBeGreaterThan(BODY_LIMIT + 7)
  })

  it("keeps a URL's short path and query whole, and cuts a long one by UTF-8 bytes", () => {
    const journal = new Journal()
    const href = `http://x.test/api/notifications?${'q=1&'.repeat(100)}`
    const url = new URL(href)
    const e = journal.add({ ...request(url.pathname), query: url.search })
    expect(e.query).toBe(url.search)
    expect(journal.add({ ...request('/x'), query: `?${'é'.repeat(TEXT_LIMIT)}` }).query).toBe(
      `?${'é'.repeat(TEXT_LIMIT / 2 - 1)}`,
    )
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
