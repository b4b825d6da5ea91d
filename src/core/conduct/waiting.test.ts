import { describe, expect, it } from 'vitest'
import type { RouteInfo } from '../route/types.js'
import { Conduct, type Seen } from './conduct.js'

// A file of its own: the judge's module must not be loaded yet when the first requests come.
const route = {
  id: 'getX',
  method: 'GET',
  path: '/api/x/:id',
  summary: '',
  tag: 'x',
  auth: { kind: 'user' },
} as RouteInfo

let next = 1
const failed = (search: string): Seen => ({
  id: next++,
  route,
  params: { id: '1' },
  request: new Request(`http://sandbox.test/api/x/1${search}`, { headers: { authorization: 'Bearer t' } }),
  path: '/api/x/1',
  search,
  status: 404,
  durationMs: 1,
  headers: {},
  clientAddress: '127.0.0.1',
  at: Date.now(),
  faults: [],
  body: undefined,
})

describe('Conduct while its judge loads', () => {
  it('keeps the failures that wait for it within 64 KB a world, judged once it is there without another request', async () => {
    const small = new Conduct()
    const large = new Conduct()
    small.seen(failed('?a'))
    small.seen(failed('?a'))
    // Two of 40 KB: the second is past the bound, counted but not kept, so no retry is seen.
    const query = `?q=${'x'.repeat(40_000)}`
    large.seen(failed(query))
    large.seen(failed(query))
    expect(small.findings).toEqual([])
    await Conduct.ready()
    expect(small.findings.map((f) => f.rule)).toEqual(['retried-refusal'])
    expect(large.findings).toEqual([])
    expect(large.rows).toBe(1)
  })
})
