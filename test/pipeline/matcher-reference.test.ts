import { describe, expect, it } from 'vitest'
import { RouteMatcher } from '../../src/core/route/matcher.js'
import { PlainMatcher } from '../../src/core/route/plain-matcher.js'
import { servedRoutes } from '../../src/core/route/route.js'
import { routes } from '../../src/apps/route-table.js'
import { generator, type Random } from '../support/generator.js'

/**
 * The tuned matcher (a segment tree, a map of the paths without params) against the plain one (a
 * scan of the table, a pattern a route) on paths generated from the table: every route's own
 * path, and the same with segments changed, added, dropped, doubled, cased or escaped. A failure
 * names its seed and path; `MATCHER_SEED=n` replays one seed.
 */
const SEEDS = process.env.MATCHER_SEED ? [Number(process.env.MATCHER_SEED)] : [1, 2, 3]
const PATHS = 4_000

const segments = [...new Set(routes.flatMap((r) => r.path.split('/').filter((s) => s && !s.startsWith(':'))))]
const values = [
  '1',
  'abc',
  'q%C3%B1%2F1',
  '%zz',
  '%',
  'a%2Fb',
  'ñ',
  '..',
  '6650f0c2a1b2c3d4e5f60718',
  ...segments.slice(0, 8),
]
const methods = [...new Set(routes.map((r) => r.method)), 'HEAD', 'OPTIONS', 'get', 'TRACE']

/** A method and path: a route's own, or near it. */
function request(r: Random): [string, string] {
  const route = r.pick(routes)
  const method = r.next() < 0.6 ? route.method : r.pick(methods)
  const parts = route.path.split('/').map((s) => (s.startsWith(':') ? r.pick(values) : s))
  switch (r.int(12)) {
    case 0:
      parts.push(r.next() < 0.5 ? '' : r.pick(values))
      break
    case 1:
      parts.splice(1 + r.int(parts.length - 1), 1)
      break
    case 2:
      parts[1 + r.int(parts.length - 1)] = r.pick(segments)
      break
    case 3:
      parts[1 + r.int(parts.length - 1)] = ''
      break
    case 4: {
      const i = 1 + r.int(parts.length - 1)
      parts[i] = parts[i].toUpperCase()
      break
    }
    case 5:
      parts.splice(1 + r.int(parts.length - 1), 0, r.pick(segments))
      break
    default:
      break
  }
  const out = parts.join('/')
  return [method, r.next() < 0.02 ? out.slice(1) : out]
}

const shown = (m: ReturnType<RouteMatcher['match']>) =>
  m.route ? { route: `${m.route.method} ${m.route.path}`, params: m.params } : { allowed: m.allowed }

describe('RouteMatcher against PlainMatcher on generated paths', () => {
  it.each(SEEDS)(
    'answers as the plain matcher, seed %i, with the whole table and with --strict --no-control',
    (seed) => {
      const r = generator(seed)
      for (const table of [routes, servedRoutes(routes, { strict: true, control: false })]) {
        const tuned = new RouteMatcher(table)
        const plain = new PlainMatcher(table)
        let found = 0
        for (let i = 0; i < PATHS; i++) {
          const [method, p] = request(r)
          const answer = shown(tuned.match(method, p))
          expect(answer, `seed ${seed}: ${method} ${p}`).toEqual(shown(plain.match(method, p)))
          expect(tuned.serves(method, p)).toBe(plain.serves(method, p))
          if (answer.route) found++
        }
        // The generated paths reach routes, not only 404s and 405s.
        expect(found).toBeGreaterThan(PATHS / 20)
      }
    },
  )
})
