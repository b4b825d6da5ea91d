import * as z from 'zod'
import { describe, expect, it } from 'vitest'
import { bundledScenarios } from '../../src/apps/page-app.js'
import { checkScenario, withOwnScenarios } from '../../src/own-scenarios/check.js'
import { setupSandboxServer } from '../../src/adapters/node/index.js'
import { generator } from '../support/generator.js'

/** Values a scenario file's default export (or an entry's `scenarios`) may hold; a fixed seed, so a failure repeats. */
const TOTAL = 4_000
const SEED = 35

const FIELDS = [
  'name',
  'description',
  'advice',
  'options',
  'order',
  'activate',
  'edge',
  'before',
  'after',
  'hides',
  'taxAuthority',
  '__proto__',
  'constructor',
  'toString',
]

function oddValue(r: ReturnType<typeof generator>): unknown {
  const throwing = () => {
    throw new Error('boom')
  }
  const values: (() => unknown)[] = [
    () => undefined,
    () => null,
    () => r.int(200) - 50,
    () => Number.NaN,
    () => 1.5,
    () => '',
    () => 'x'.repeat(r.pick([1, 64, 65, 2000, 2001])),
    () => r.pick(['maintenance-window', 'Bad Name', 'slow', 'a', '-x', 'rate-limited', 'ok-2']),
    () => () => undefined,
    () => ({}),
    () => [],
    () => z.strictObject({}),
    () => z.strictObject({ minutes: z.number() }),
    () => z.strictObject({ minutes: z.number().default(5) }),
    () => ({ safeParse: throwing, _zod: {} }),
    () => ({ safeParse: () => ({ success: true }) }),
    () => Object.create(null),
    () => new Proxy({}, { get: throwing }),
    () => Symbol('s'),
    () => 10n,
  ]
  return r.pick(values)()
}

/** A plausible scenario with some fields wrong, missing or odd; sometimes not an object at all. */
function oddScenario(r: ReturnType<typeof generator>): unknown {
  if (r.next() < 0.1) return oddValue(r)
  const base: Record<string, unknown> = {
    name: 'own-x',
    description: 'a scenario',
    advice: 'none',
    options: z.strictObject({}),
    after: () => undefined,
  }
  for (let i = r.int(4); i >= 0; i--) {
    const field = r.pick(FIELDS)
    if (r.next() < 0.3) delete base[field]
    else
      Object.defineProperty(
        base,
        field,
        r.next() < 0.05
          ? {
              get: () => {
                throw new Error('getter')
              },
              enumerable: true,
              configurable: true,
            }
          : { value: oddValue(r), enumerable: true, configurable: true, writable: true },
      )
  }
  return base
}

/** Each refusal names where, the field and the rule; nothing else escapes (no TypeError of ours, no user code's error as is). */
const RULE = /^scenarios\.\d+: [a-zA-Z ]+: .+/

describe("scenario files and the entries' `scenarios`: odd values checked, never crashing", () => {
  it(`${TOTAL} generated default exports: a definition, or an Error naming the field and the rule`, () => {
    const r = generator(SEED)
    let accepted = 0
    for (let i = 0; i < TOTAL; i++) {
      const value = oddScenario(r)
      try {
        expect(checkScenario(value, 'scenarios.0')).toBe(value)
        accepted++
      } catch (error) {
        expect(error).toBeInstanceOf(Error)
        expect((error as Error).message).toMatch(RULE)
      }
    }
    // The generator makes both kinds: a check that refused everything would pass unseen.
    expect(accepted).toBeGreaterThan(TOTAL / 20)
    expect(accepted).toBeLessThan(TOTAL)
  })

  it('lists: not a list, too long, clashing names, odd items: refused naming the field', () => {
    const r = generator(SEED + 1)
    const lists: unknown[] = [
      'x',
      {},
      null,
      Array.from({ length: 101 }, () =>
        checkScenario({ name: 'a', description: 'd', advice: 'a', options: z.strictObject({}) }, 'x'),
      ),
      [{ name: 'slow', description: 'd', advice: 'a', options: z.strictObject({}) }],
      ...Array.from({ length: 300 }, () => Array.from({ length: r.int(4) }, () => oddScenario(r))),
    ]
    for (const list of lists) {
      try {
        withOwnScenarios(bundledScenarios.list(), list)
      } catch (error) {
        expect(error).toBeInstanceOf(Error)
        expect((error as Error).message).toMatch(/^scenarios(\.\d+)?: /)
      }
    }
  })

  it('through an entry: setupSandboxServer refuses a bad one at start and serves a good one, each in its own app', async () => {
    expect(() =>
      setupSandboxServer({
        scenarios: [
          {
            name: 'own',
            description: 'd',
            advice: 'a',
            options: {
              safeParse: () => {
                throw new Error('boom')
              },
              _zod: {},
            },
          },
        ] as never,
      }),
    ).toThrow(/^scenarios\.0: options: /)
    const good = setupSandboxServer({
      scenarios: [
        {
          name: 'own',
          description: 'd',
          advice: 'a',
          options: z.strictObject({}),
          after: () => ({ status: 418, body: {} }),
        },
      ] as never,
    })
    const other = setupSandboxServer({})
    expect(good.app.scenarios.list().map((s) => s.name)).toContain('own')
    expect(other.app.scenarios.list().map((s) => s.name)).not.toContain('own')
  })
})
