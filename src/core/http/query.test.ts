import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { listQuery } from '../notifications/routes.js'
import { QueryValidator } from './query.js'
import { queryObject, validate } from './validate.js'

const whole = (schema: z.ZodType, search: string) => {
  try {
    return { ok: validate(schema, queryObject(new URLSearchParams(search)), 'query') }
  } catch (error) {
    return { error: (error as Error).message }
  }
}
const fieldwise = (v: QueryValidator<unknown>, search: string) => {
  try {
    return { ok: v.validate(search) }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

const searches = [
  '',
  '?page=2&limit=50',
  '?types=geofence',
  '?types=geofence&types=ignition&status=reviewed',
  '?startDate=2026-01-01&endDate=2026-01-31',
  '?startDate=2026-01-01T10:00:00Z',
  '?assetIds=6650a1b2c3d4e5f6a7b8c9d0&page=3',
  '?unknown=1&limit=20',
  '?page=0',
  '?limit=51',
  '?types=nope',
  '?startDate=yesterday',
  '?page=x&limit=0&status=nope',
  '?types=geofence&types=nope&startDate=bad',
  '?assetIds=xyz',
  '?page=1&page=2',
]

describe('QueryValidator', () => {
  it('answers what zod answers for the whole query, valid or not, in any order asked', () => {
    const v = new QueryValidator(listQuery)
    for (const search of [...searches, ...[...searches].reverse()])
      expect(fieldwise(v, search), search).toEqual(whole(listQuery, search))
  })

  it('hands out frozen values, shared by the requests that ask the same field', () => {
    const v = new QueryValidator(listQuery)
    const a = v.validate('?types=geofence&page=2') as { types: string[] }
    const b = v.validate('?types=geofence&page=3') as { types: string[] }
    expect(Object.isFrozen(a) && Object.isFrozen(a.types)).toBe(true)
    expect(b.types).toBe(a.types)
  })

  it('keeps at most 512 values a field and none longer than 256 characters', () => {
    const v = new QueryValidator(z.object({ q: z.string().optional() }))
    for (let i = 0; i < 2000; i++) v.validate(`?q=${i}`)
    expect(v.validate('?q=' + 'x'.repeat(300))).toEqual({ q: 'x'.repeat(300) })
    expect(v.keptValues('q')).toBe(512)
  })

  it('validates a schema with rules across fields whole', () => {
    const schema = z
      .object({ a: z.string().optional(), b: z.string().optional() })
      .refine((o) => !(o.a && o.b), 'give a or b')
    const v = new QueryValidator(schema)
    expect(fieldwise(v, '?a=1&b=2')).toEqual(whole(schema, '?a=1&b=2'))
    expect(fieldwise(v, '?a=1')).toEqual({ ok: { a: '1' } })
  })
})
