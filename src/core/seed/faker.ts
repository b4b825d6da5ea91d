import { femaleFirstNames, lastNames, maleFirstNames } from './names.js'

// The part of faker 10 the seeds call, with faker's own algorithms (its Mersenne Twister and the
// same draws in the same order) and its Spanish names, so a seed gives the rows
// `new Faker({ locale: [es, base] })` gave. faker's class and locale data weighed more in the
// browser entry than anything but msw's cookie store, for a dozen methods (bench: `npm run
// build:browser`; docs/benchmarks-history.md, issue 55).
// test/world/seeded-faker.test.ts seeds whole worlds with both and compares them: faker stays the plain
// version, a devDependency, and this the tuned one (faker 10, MIT licence: Faker, Copyright (c) 2022-2025).

type Range = number | { min: number; max: number }
type Weighted<T> = { weight: number; value: T }

/** faker's MersenneTwister19937 (its default randomizer): 53-bit floats in [0, 1). */
class Twister {
  private states: number[] = []
  private index = 0

  constructor(seed: number) {
    this.states = twist(initialState(seed))
  }

  private nextU32(): number {
    let y = this.states[this.index]
    y ^= this.states[this.index] >>> 11
    y ^= (y << 7) & 0x9d2c5680
    y ^= (y << 15) & 0xefc60000
    y ^= y >>> 18
    if (++this.index >= 624) {
      this.states = twist(this.states)
      this.index = 0
    }
    return y >>> 0
  }

  next(): number {
    const a = this.nextU32() >>> 5
    const b = this.nextU32() >>> 6
    return (a * 67108864 + b) * 1.1102230246251565e-16
  }
}

function initialState(seed: number): number[] {
  const s = new Array<number>(624)
  s[0] = seed
  for (let i = 1; i !== 624; ++i) {
    const p = s[i - 1] ^ (s[i - 1] >>> 30)
    s[i] = Math.trunc(Math.imul(1812433253, p) + i)
  }
  return s
}

function twist(s: number[]): number[] {
  const upper = 2 ** 31
  const lower = 2 ** 31 - 1
  for (let i = 0; i !== 227; ++i) {
    const y = (s[i] & upper) + (s[i + 1] & lower)
    s[i] = s[i + 397] ^ (y >>> 1) ^ (-(y & 1) & 2567483615)
  }
  for (let i = 227; i !== 623; ++i) {
    const y = (s[i] & upper) + (s[i + 1] & lower)
    s[i] = s[i + 397 - 624] ^ (y >>> 1) ^ (-(y & 1) & 2567483615)
  }
  const y = (s[623] & upper) + (s[0] & lower)
  s[623] = s[396] ^ (y >>> 1) ^ (-(y & 1) & 2567483615)
  return s
}

const DIGITS = [...'0123456789']
const LOWER = [...'abcdefghijklmnopqrstuvwxyz']
const UPPER = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ']
const HEX = [...'0123456789abcdefABCDEF']

/** What the seeds ask of faker; `SeedContext.faker` has this type. */
export class SeededFaker {
  private readonly random: Twister

  constructor(seed: number) {
    this.random = new Twister(seed)
  }

  readonly number = {
    int: (options: number | { min?: number; max?: number; multipleOf?: number } = {}): number => {
      const { min = 0, max = 2 ** 53 - 1, multipleOf = 1 } = typeof options === 'number' ? { max: options } : options
      const low = Math.ceil(min / multipleOf)
      const high = Math.floor(max / multipleOf)
      if (low === high) return low * multipleOf
      if (high < low) throw new Error(`no integer between ${min} and ${max}`)
      return Math.floor(this.random.next() * (high - low + 1) + low) * multipleOf
    },
    float: (
      options: number | { min?: number; max?: number; fractionDigits?: number; multipleOf?: number } = {},
    ): number => {
      const o = typeof options === 'number' ? { max: options } : options
      const { min = 0, max = 1, fractionDigits } = o
      const multipleOf = o.multipleOf ?? (fractionDigits === undefined ? undefined : 10 ** -fractionDigits)
      if (max < min) throw new Error(`max ${max} is below min ${min}`)
      if (multipleOf !== undefined) {
        const exponent = Math.log10(multipleOf)
        const factor = multipleOf < 1 && Number.isSafeInteger(exponent) ? 10 ** -exponent : 1 / multipleOf
        return this.number.int({ min: min * factor, max: max * factor }) / factor
      }
      return this.random.next() * (max - min) + min
    },
    hex: (options: { min: number; max: number }): string => this.number.int(options).toString(16),
  }

  readonly datatype = {
    boolean: (probability = 0.5): boolean =>
      probability <= 0 ? false : probability >= 1 || this.number.float() < probability,
  }

  readonly helpers = {
    rangeToNumber: (range: Range): number => (typeof range === 'number' ? range : this.number.int(range)),
    arrayElement: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error('no element to pick from an empty list')
      return items[items.length > 1 ? this.number.int({ max: items.length - 1 }) : 0]
    },
    weightedArrayElement: <T>(items: readonly Weighted<T>[]): T => {
      const total = items.reduce((sum, { weight }) => sum + weight, 0)
      const roll = this.number.float({ min: 0, max: total })
      let reached = 0
      for (const { weight, value } of items) {
        reached += weight
        if (roll < reached) return value
      }
      return items[items.length - 1].value
    },
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items]
      for (let i = out.length - 1; i > 0; --i) {
        const j = this.number.int(i)
        ;[out[i], out[j]] = [out[j], out[i]]
      }
      return out
    },
    arrayElements: <T>(items: readonly T[], count?: Range): T[] => {
      if (items.length === 0) return []
      const n = this.helpers.rangeToNumber(count ?? { min: 1, max: items.length })
      if (n >= items.length) return this.helpers.shuffle(items)
      if (n <= 0) return []
      const out = [...items]
      let i = items.length
      const stop = i - n
      while (i-- > stop) {
        const j = this.number.int(i)
        const picked = out[j]
        out[j] = out[i]
        out[i] = picked
      }
      return out.slice(stop)
    },
  }

  readonly string = {
    fromCharacters: (characters: readonly string[], length: Range = 1): string => {
      const n = this.helpers.rangeToNumber(length)
      if (n <= 0) return ''
      return Array.from({ length: n }, () => this.helpers.arrayElement(characters)).join('')
    },
    numeric: (length: Range = 1): string => this.string.fromCharacters(DIGITS, length),
    alphanumeric: (length: Range = 1): string => this.string.fromCharacters([...DIGITS, ...LOWER, ...UPPER], length),
    hexadecimal: (options: { length: number; casing?: 'lower' | 'upper' | 'mixed'; prefix?: string }): string => {
      const { casing = 'mixed', prefix = '0x' } = options
      const n = this.helpers.rangeToNumber(options.length)
      if (n <= 0) return prefix
      const digits = this.string.fromCharacters(HEX, n)
      return `${prefix}${casing === 'upper' ? digits.toUpperCase() : casing === 'lower' ? digits.toLowerCase() : digits}`
    },
    uuid: (): string =>
      'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'
        .replaceAll('x', () => this.number.hex({ min: 0, max: 15 }))
        .replaceAll('y', () => this.number.hex({ min: 8, max: 11 })),
  }

  readonly person = {
    // faker draws a sex first; es has female and male first names and no generic ones.
    firstName: (): string =>
      this.helpers.arrayElement(
        this.helpers.arrayElement(['female', 'male']) === 'female' ? femaleFirstNames : maleFirstNames,
      ),
    // es's last name pattern is two generic last names: faker draws a sex (unused), weighs the
    // one pattern, then picks each name.
    lastName: (): string => {
      this.helpers.arrayElement(['female', 'male'])
      this.helpers.weightedArrayElement([{ weight: 1, value: 'two names' }])
      return `${this.helpers.arrayElement(lastNames)} ${this.helpers.arrayElement(lastNames)}`
    },
  }

  readonly internet = {
    email: (options: { provider: string }): string => {
      const first = this.person.firstName()
      const last = this.person.lastName()
      const separator = this.helpers.arrayElement(['.', '_'])
      const number = this.number.int(99)
      const shapes = [
        () => `${first}${separator}${last}${number}`,
        () => `${first}${separator}${last}`,
        () => `${first}${number}`,
      ]
      // Every Spanish name is ASCII once its accents are taken off, which is all faker's transliteration does to them.
      const user = this.helpers
        .arrayElement(shapes)()
        .normalize('NFKD')
        .replaceAll(/[\u0300-\u036F]/g, '')
        .replaceAll("'", '')
        .replaceAll(' ', '')
      const local = user
        .replaceAll(/[^A-Za-z0-9._+-]+/g, '')
        .substring(0, 50)
        .replaceAll(/\.{2,}/g, '.')
        .replace(/^\./, '')
        .replace(/\.$/, '')
      return `${local}@${options.provider}`
    },
  }
}
