import { beforeAll, describe, expect, it } from 'vitest'
import type { RouteInfo } from '../route/types.js'
import { Conduct, MAX_FINDINGS, MAX_ROWS, type Seen } from './conduct.js'

const route = (id: string, method: RouteInfo['method'] = 'GET', effect = false): RouteInfo =>
  ({ id, method, path: '/api/x/:id', summary: '', tag: 'x', auth: { kind: 'user' }, effect }) as RouteInfo

let next = 1
function seen(over: Partial<Seen> & { path?: string }): Seen {
  const path = over.path ?? '/api/x/1'
  return {
    id: next++,
    route: route('getX'),
    params: { id: '1' },
    request: new Request(`http://sandbox.test${path}`, { headers: { authorization: 'Bearer t' } }),
    path,
    search: '',
    status: 200,
    durationMs: 1,
    headers: {},
    clientAddress: '127.0.0.1',
    at: Date.now(),
    faults: [],
    body: undefined,
    ...over,
  }
}

/** The rules alone, on requests made up (the front door's tests are test/conduct/). */
describe('Conduct', () => {
  beforeAll(() => Conduct.ready())

  it('follows at most MAX_ROWS rows and keeps at most MAX_FINDINGS findings, whatever the traffic', () => {
    const c = new Conduct()
    const long = 'x'.repeat(10_000)
    for (let i = 0; i < MAX_ROWS * 4; i++) c.seen(seen({ path: `/api/x/${i}${long}`, status: 404 }))
    expect(c.rows).toBe(MAX_ROWS)
    const at = Date.now()
    for (let i = 0; i < MAX_FINDINGS * 2; i++) {
      c.seen(seen({ path: `/api/y/${i}${long}`, status: 404, at }))
      c.seen(seen({ path: `/api/y/${i}${long}`, status: 404, at }))
    }
    expect(c.findings).toHaveLength(MAX_FINDINGS)
    expect(c.rows).toBe(MAX_ROWS)
    // A finding holds no long URL.
    expect(Math.max(...c.findings.map((f) => f.what.length))).toBeLessThanOrEqual(256)
  })

  it('a success with no row open keeps nothing but the coverage', () => {
    const c = new Conduct()
    for (let i = 0; i < 100; i++) c.seen(seen({ path: `/api/x/${i}` }))
    expect(c.rows).toBe(0)
    expect([...c.statuses.get('getX')!]).toEqual([[200, next - 100]])
  })

  it('a row ends after 60 s: the same request sent again later is a new first attempt', () => {
    const c = new Conduct()
    const at = Date.now()
    c.seen(seen({ status: 404, at }))
    expect(c.seen(seen({ status: 404, at: at + 61_000 }))).toBeUndefined()
    expect(c.seen(seen({ status: 404, at: at + 62_000 }))).toEqual(['retried-refusal'])
  })

  it('keeps the backoff within its 250 ms tolerance, from the first attempt', () => {
    const c = new Conduct()
    const at = Date.now()
    c.seen(seen({ status: 503, at }))
    expect(c.seen(seen({ status: 503, at: at + 760 }))).toBeUndefined()
    expect(c.seen(seen({ status: 503, at: at + 2_760 }))).toBeUndefined()
    expect(c.seen(seen({ status: 503, at: at + 6_500 }))).toEqual(['retried-too-soon'])
  })
})
