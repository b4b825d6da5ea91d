import { badRequest } from '../http/reply.js'

/**
 * The sandbox clock: starts at `start` and runs at real pace, shifted by whatever tests
 * advance or set. It never sleeps; moving time is arithmetic. `freeze` stops the pace so a
 * test can read the same instant twice.
 */
export class Clock {
  #base: number
  #realAtBase: number
  #frozen: boolean
  /** Set while a write runs (`pinned`): the write sees one instant, which a repro bundle keeps. */
  #pin: number | undefined
  /** The last instant written as ISO text: the journal asks it on every request. */
  #isoAt = NaN
  #iso = ''

  constructor(
    start: number,
    private readonly realNow: () => number = Date.now,
    frozen = false,
  ) {
    this.#base = start
    this.#realAtBase = realNow()
    this.#frozen = frozen
  }

  now(): number {
    if (this.#pin !== undefined) return this.#pin
    return this.#frozen ? this.#base : this.#base + (this.realNow() - this.#realAtBase)
  }

  iso(): string {
    const now = this.now()
    if (now !== this.#isoAt) ((this.#iso = new Date(now).toISOString()), (this.#isoAt = now))
    return this.#iso
  }

  /** Runs `fn` with the clock held at its current instant; `at` receives it. */
  async pinned<T>(fn: () => T | Promise<T>, at?: (ms: number) => void): Promise<T> {
    const now = this.now()
    this.#pin = now
    at?.(now)
    try {
      return await fn()
    } finally {
      this.#pin = undefined
    }
  }

  set(epochMs: number): void {
    this.#pin = undefined
    this.#base = epochMs
    this.#realAtBase = this.realNow()
  }

  advance(ms: number): void {
    this.set(this.now() + ms)
  }

  freeze(frozen: boolean): void {
    this.set(this.now())
    this.#frozen = frozen
  }

  get frozen(): boolean {
    return this.#frozen
  }

  toJSON() {
    return { now: this.iso(), frozen: this.#frozen }
  }
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** `"31d"`, `"1h30m"`, `"90s"` or a number of seconds, as `advanceBy` accepts. */
/** A duration as text: numbers with ms, s, m, h, d or w (`31d`, `1h30m`); the document states this pattern. */
export const DURATION_TEXT = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+$/

export function parseDuration(value: unknown, field = 'advanceBy'): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw badRequest(`${field}: must be a non-negative number of seconds`)
    return value * 1000
  }
  if (typeof value !== 'string' || value.trim() === '') {
    throw badRequest(`${field}: must be seconds or a duration such as "31d", "2h", "90s"`)
  }
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy
  let total = 0
  let consumed = 0
  for (let m = re.exec(value); m; m = re.exec(value)) {
    total += Number(m[1]) * units[m[2]]
    consumed = re.lastIndex
  }
  if (consumed !== value.length || !DURATION_TEXT.test(value)) {
    throw badRequest(`${field}: "${value}" is not a duration; use numbers with ms, s, m, h, d or w, such as "31d"`)
  }
  return total
}

export const DAY = 86_400_000

/** Compares ISO 8601 instants of one format (as text, which orders them); `byTime(b.at, a.at)` sorts newest first. */
export const byTime = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Instants the clock may show: JWT times and ISO dates both hold between these. */
const EARLIEST = 0
const LATEST = Date.parse('9999-12-31T23:59:59.999Z')

/** A 400 naming `field` unless `epochMs` lies between 1970 and the year 9999. */
export function checkInstant(epochMs: number, field: string): number {
  if (!Number.isFinite(epochMs) || epochMs < EARLIEST || epochMs > LATEST) {
    throw badRequest(`${field}: the clock must stay between 1970-01-01 and 9999-12-31`)
  }
  return epochMs
}
