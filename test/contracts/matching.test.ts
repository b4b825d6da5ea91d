import { describe, expect, it } from 'vitest'
import { shape } from '../../src/core/contracts/matching.js'

/**
 * A list's example item, as the Pact verifier compares every item with it (found by the sessions'
 * pact property on CI's second leg: seed 1868829626).
 */
describe("a list's example in a contract", () => {
  it('takes a value where its fullest item holds null and another a value, and lets null match there too', () => {
    const draft = { id: 'inv_1', status: 'draft', number: null, lines: [{ q: 1 }, { q: 2 }, { q: 3 }], dteId: null }
    const published = { id: 'inv_2', status: 'published', number: 'F-000002', lines: [{ q: 1 }], dteId: null }
    const { example, rules } = shape({ data: { items: [draft, published] } })
    const item = (example as { data: { items: Record<string, unknown>[] } }).data.items[0]
    // The draft is the fullest (more lines), its number the published one's.
    expect(item).toMatchObject({ id: 'inv_1', number: 'F-000002', dteId: null })
    expect(rules['$.data.items[*].number']).toEqual({ combine: 'OR', matchers: [{ match: 'type' }, { match: 'null' }] })
    // Null in every item: no value to take, null expected.
    expect(rules['$.data.items[*].dteId']).toBeUndefined()
  })

  it("keeps only the fullest item's own keys: a key some items leave out is not expected of all", () => {
    const { example } = shape([
      { a: null, c: [1, 2, 3] },
      { a: 1, b: 2 },
    ])
    expect(example).toEqual([{ a: 1, c: [1] }])
  })
})
