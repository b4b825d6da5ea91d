import { describe, expect, it } from 'vitest'
import { HttpError } from '../http/reply.js'
import { invoiceStatuses } from './model.js'
import { invoiceEvents, invoiceLifecycle } from './invoice-lifecycle.js'

/** What the table must say, row by row: the targets an event may reach, or its refusal. */
const expected: Record<string, readonly string[] | 409 | 422> = {
  'draft|publish': ['published'],
  'published|publish': 409,
  'paid|publish': 409,
  'draft|emit-dte': 422,
  'published|emit-dte': ['published'],
  'paid|emit-dte': ['paid'],
  'draft|send-email': 409,
  'published|send-email': ['published'],
  'paid|send-email': ['paid'],
  'draft|register-payment': 409,
  'published|register-payment': ['published', 'paid'],
  'paid|register-payment': 409,
}

describe('invoice lifecycle', () => {
  it('has exactly one row for every status and event', () => {
    const keys = invoiceLifecycle.rows.map((r) => `${r.from}|${r.on}`).sort()
    expect(keys).toEqual(invoiceStatuses.flatMap((s) => invoiceEvents.map((e) => `${s}|${e}`)).sort())
  })

  it.each(Object.entries(expected))('%s -> %j', (key, want) => {
    const [from, on] = key.split('|') as [(typeof invoiceStatuses)[number], (typeof invoiceEvents)[number]]
    if (typeof want === 'number') {
      let error: unknown
      try {
        invoiceLifecycle.allow(from, on, 'invoice inv_x')
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(HttpError)
      expect((error as HttpError).status).toBe(want)
      expect((error as HttpError).message).toMatch(new RegExp(`^status: invoice inv_x is ${from}; `))
    } else {
      expect(invoiceLifecycle.allow(from, on, 'invoice inv_x')).toEqual(want)
      for (const to of want as (typeof invoiceStatuses)[number][])
        expect(invoiceLifecycle.next(from, on, to, 'invoice inv_x')).toBe(to)
      // A target the row does not list is a bug in the caller, never a client error.
      const other = invoiceStatuses.find((s) => !want.includes(s))!
      expect(() => invoiceLifecycle.next(from, on, other, 'invoice inv_x')).toThrow(/cannot lead to/)
    }
  })
})
