import { seededRandom } from '../../src/core/clock/random.js'

/** A seeded generator for the reference tests (mulberry32, src/core/clock/random.ts), so a failing run repeats. */
export function generator(seed: number) {
  const next = seededRandom(seed)
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]
  const some = <T>(list: readonly T[]): T[] | undefined =>
    next() < 0.5 ? undefined : Array.from({ length: int(4) }, () => pick(list))
  return { next, int, pick, some }
}

export type Random = ReturnType<typeof generator>
