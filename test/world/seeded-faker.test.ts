import { Faker, base, es } from '@faker-js/faker'
import * as fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as accounts from '../../fixtures/accounts.js'
import { SeededFaker } from '../../src/core/seed/faker.js'
import { femaleFirstNames, lastNames, maleFirstNames } from '../../src/core/seed/names.js'
import { seedWorld } from '../../src/core/seed/seed.js'

// The seeds draw from SeededFaker, faker's algorithms without its class and locale data (the
// browser entry's weight, issue 55): a world seeded with it must be the world faker seeds.
const faker = (seed: number) => {
  const f = new Faker({ locale: [es, base] })
  f.seed(seed)
  return f
}
// A range with no number in it throws in both (the message differs).
const outcome = (draw: () => unknown) => {
  try {
    return { value: draw() }
  } catch {
    return { threw: true }
  }
}
const now = Date.parse('2026-11-22T12:00:00Z')

describe('SeededFaker draws what faker draws', () => {
  it("has faker's Spanish names, in faker's order", () => {
    expect(femaleFirstNames).toEqual(es.person!.first_name!.female)
    expect(maleFirstNames).toEqual(es.person!.first_name!.male)
    expect(lastNames).toEqual(es.person!.last_name!.generic)
  })

  it.each([
    [1, 'small'],
    [7, 'medium'],
    [42, 'small'],
    [2_147_483_647, 'small'],
  ] as const)('seed %i, %s: the same world, byte for byte', (seed, size) => {
    const ours = JSON.stringify(seedWorld({ accounts, seed, now, size }))
    const theirs = JSON.stringify(seedWorld({ accounts, seed, now, size }, faker(seed) as unknown as SeededFaker))
    expect(ours.length).toBe(theirs.length)
    expect(ours === theirs).toBe(true)
  })

  it('every method, over generated arguments and seeds, past the twister’s 624-word refill', () => {
    const range = fc.oneof(
      fc.nat(40),
      fc.tuple(fc.nat(20), fc.nat(20)).map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) })),
    )
    const call = fc.oneof(
      fc
        .integer({ min: -1e6, max: 1e6 })
        .chain((min) =>
          fc.integer({ min, max: min + 1e7 }).map((max) => (f: Faker | SeededFaker) => f.number.int({ min, max })),
        ),
      fc.nat(1000).map((max) => (f: Faker | SeededFaker) => f.number.int(max)),
      fc.double({ min: -100, max: 100, noNaN: true }).chain((min) =>
        fc.tuple(fc.double({ min, max: 200, noNaN: true }), fc.option(fc.nat(4), { nil: undefined })).map(
          ([max, fractionDigits]) =>
            (f: Faker | SeededFaker) =>
              f.number.float({ min, max, fractionDigits }),
        ),
      ),
      fc.double({ min: 0, max: 1, noNaN: true }).map((p) => (f: Faker | SeededFaker) => f.datatype.boolean(p)),
      fc
        .array(fc.string(), { minLength: 1, maxLength: 9 })
        .map((a) => (f: Faker | SeededFaker) => f.helpers.arrayElement(a)),
      fc.tuple(fc.array(fc.nat(), { maxLength: 9 }), fc.option(range, { nil: undefined })).map(
        ([a, n]) =>
          (f: Faker | SeededFaker) =>
            f.helpers.arrayElements(a, n),
      ),
      fc
        .array(fc.record({ weight: fc.double({ min: 0.01, max: 10, noNaN: true }), value: fc.nat() }), {
          minLength: 1,
          maxLength: 6,
        })
        .map((a) => (f: Faker | SeededFaker) => f.helpers.weightedArrayElement(a)),
      fc.nat(40).map((n) => (f: Faker | SeededFaker) => f.string.numeric(n)),
      fc.nat(40).map((n) => (f: Faker | SeededFaker) => f.string.alphanumeric(n)),
      fc.tuple(fc.nat(30), fc.constantFrom('lower' as const, 'upper' as const, 'mixed' as const)).map(
        ([length, casing]) =>
          (f: Faker | SeededFaker) =>
            f.string.hexadecimal({ length, casing, prefix: '' }),
      ),
      fc.constant((f: Faker | SeededFaker) => f.string.uuid()),
      fc.constant((f: Faker | SeededFaker) => f.person.firstName()),
      fc.constant((f: Faker | SeededFaker) => f.person.lastName()),
      fc.constant((f: Faker | SeededFaker) => f.internet.email({ provider: 'fleet.test' })),
    )
    fc.assert(
      fc.property(fc.nat(), fc.array(call, { minLength: 1, maxLength: 400 }), (seed, calls) => {
        const theirs = faker(seed)
        const ours = new SeededFaker(seed)
        for (const c of calls) expect(outcome(() => c(ours))).toEqual(outcome(() => c(theirs)))
      }),
      { numRuns: 200 },
    )
  })
})
