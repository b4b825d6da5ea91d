import { describe, expect, it } from 'vitest'
import { HttpError } from '../http/reply.js'
import { dteStatuses } from './model.js'
import { type DteEvent, type DteState, dteLifecycle } from './dte-lifecycle.js'

const U = 'SII_UPLOAD_UNCERTAIN'
const P = 'SII_PENDING'
const A = 'SII_ACCEPTED'
const R = 'SII_REJECTED'

/** Row by row: targets, or the refusal status. */
const expected: Record<string, readonly string[] | 409 | 422> = {
  'new|upload': [P, U],
  [`${U}|sync`]: 422,
  [`${P}|sync`]: [P, A, R],
  [`${A}|sync`]: [A],
  [`${R}|sync`]: [R],
  [`${U}|resolve`]: [A, R],
  [`${P}|resolve`]: [A, R],
  [`${A}|resolve`]: 409,
  [`${R}|resolve`]: 409,
  [`${U}|new-emission`]: 409,
  [`${P}|new-emission`]: 409,
  [`${A}|new-emission`]: 409,
  [`${R}|new-emission`]: [R],
}

describe('DTE lifecycle', () => {
  it('covers every local_status for sync, resolve and new-emission, and upload only from new', () => {
    const keys = dteLifecycle.rows.map((r) => `${r.from}|${r.on}`).sort()
    const want = [
      'new|upload',
      ...dteStatuses.flatMap((s) => ['sync', 'resolve', 'new-emission'].map((e) => `${s}|${e}`)),
    ].sort()
    expect(keys).toEqual(want)
  })

  it.each(Object.entries(expected))('%s -> %j', (key, want) => {
    const [from, on] = key.split('|') as [DteState, DteEvent]
    if (typeof want === 'number') {
      let error: unknown
      try {
        dteLifecycle.allow(from, on, 'DTE dte_x')
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(HttpError)
      expect((error as HttpError).status).toBe(want)
      expect((error as HttpError).message).toMatch(new RegExp(`^local_status: DTE dte_x is ${from}; `))
    } else {
      expect([...dteLifecycle.allow(from, on, 'DTE dte_x')].sort()).toEqual([...want].sort())
      for (const to of want) expect(dteLifecycle.next(from, on, to as DteState, 'DTE dte_x')).toBe(to)
    }
  })

  it('keeps an accepted DTE final: no row leads out of SII_ACCEPTED', () => {
    for (const r of dteLifecycle.rows) if (r.from === A && 'to' in r) expect(r.to).toEqual([A])
  })

  it('refuses a table with two rows for the same state and event', async () => {
    const { Lifecycle } = await import('./lifecycle.js')
    expect(
      () =>
        new Lifecycle('s', [
          { from: 'a', on: 'e', to: ['a'] },
          { from: 'a', on: 'e', to: ['b'] },
        ]),
    ).toThrow(/two rows/)
  })
})
