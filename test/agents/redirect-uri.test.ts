import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { REDIRECT_URI, redirectError } from '../../src/core/agents/requests.js'

/**
 * The served document's redirect URI pattern narrows to what registration takes: every URI it
 * allows is one the endpoint's own check takes (a query with no path before it was not: the URL
 * parser writes a "/" there, so the redirect would go elsewhere than registered).
 */
describe('the redirect URI pattern of the served document', () => {
  // fast-check's stringMatching takes no lookahead: URIs are built from the parts the pattern
  // names (and some it refuses), and those it allows are checked.
  const chars = (set: string, max: number) =>
    fc.array(fc.constantFrom(...set), { maxLength: max }).map((c) => c.join(''))
  const uris = fc
    .tuple(
      fc.constantFrom(
        'https://app.example.com',
        'https://a.b-c.io',
        'http://localhost',
        'http://127.0.0.1',
        'http://[::1]',
      ),
      fc.constantFrom('', ':8080', ':443', ':80', ':1234'),
      fc.array(chars('abcXYZ019._~-', 6), { maxLength: 3 }),
      fc.constantFrom('', '/'),
      fc.option(chars('aZ0._~=&-', 8), { nil: undefined }),
    )
    .map(([origin, port, segments, slash, query]) =>
      [origin, port, segments.map((s) => `/${s}`).join(''), slash, query === undefined ? '' : `?${query}`].join(''),
    )
    .filter((uri) => REDIRECT_URI.test(uri))

  it('allows only URIs registration takes (fast-check, URIs the pattern matches)', () => {
    fc.assert(
      fc.property(uris, (uri) => {
        expect(redirectError(uri), uri).toBeUndefined()
      }),
      { numRuns: 3000, seed: 20261128 },
    )
  })

  it('leaves out a query with no path before it, which the check refuses', () => {
    expect(REDIRECT_URI.test('http://localhost?x=1')).toBe(false)
    expect(redirectError('http://localhost?x=1')).toMatch(/must be written as it reads/)
    expect(REDIRECT_URI.test('http://localhost/?x=1')).toBe(true)
  })
})
