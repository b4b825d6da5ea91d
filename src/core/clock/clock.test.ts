import { describe, expect, it } from 'vitest'
import { Clock, DAY, checkInstant, parseDuration } from './clock.js'
import { HttpError } from '../http/reply.js'

/** A hand-moved stand-in for the machine's time. */
const realTime = (start = 1_000) => {
  let t = start
  return { now: () => t, pass: (ms: number) => void (t += ms) }
}

const START = Date.parse('2026-11-22T12:00:00.000Z')

describe('Clock', () => {
  it('runs at real pace from its start', () => {
    const real = realTime()
    const clock = new Clock(START, real.now)
    expect(clock.now()).toBe(START)
    real.pass(1500)
    expect(clock.iso()).toBe('2026-11-22T12:00:01.500Z')
  })

  it('advances and sets by arithmetic, never by waiting, and keeps running afterwards', () => {
    const real = realTime()
    const clock = new Clock(START, real.now)
    clock.advance(31 * DAY)
    expect(clock.iso()).toBe('2026-12-23T12:00:00.000Z')
    clock.set(Date.parse('2030-01-01T00:00:00Z'))
    real.pass(10)
    expect(clock.iso()).toBe('2030-01-01T00:00:00.010Z')
  })

  it('frozen, it shows the same instant until moved', () => {
    const real = realTime()
    const clock = new Clock(START, real.now, true)
    real.pass(60_000)
    expect(clock.now()).toBe(START)
    clock.advance(1000)
    expect(clock.now()).toBe(START + 1000)
    clock.freeze(false)
    real.pass(5)
    expect(clock.now()).toBe(START + 1005)
    expect(clock.toJSON()).toEqual({ now: new Date(START + 1005).toISOString(), frozen: false })
  })
})

describe('parseDuration', () => {
  it.each([
    ['31d', 31 * DAY],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['250ms', 250],
    ['2w', 14 * DAY],
    ['1.5h', 5_400_000],
    [45, 45_000],
    [0, 0],
  ])('reads %j', (value, ms) => {
    expect(parseDuration(value)).toBe(ms)
  })

  it.each([
    ['soon'],
    ['-1d'],
    ['1 d'],
    ['d'],
    [''],
    ['3x'],
    [-1],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [null],
    [{}],
  ])('refuses %j with a 400 naming the field', (value) => {
    const error = (() => {
      try {
        parseDuration(value, 'advanceBy')
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).status).toBe(400)
    expect((error as HttpError).message).toMatch(/^advanceBy: /)
  })
})

describe('checkInstant', () => {
  it('keeps the clock between 1970 and the year 9999', () => {
    expect(checkInstant(START, 'set')).toBe(START)
    expect(() => checkInstant(-1, 'set')).toThrow('set: the clock must stay between 1970-01-01 and 9999-12-31')
    expect(() => checkInstant(Date.parse('+010000-01-01T00:00:00Z'), 'advanceBy')).toThrow(/^advanceBy: /)
    expect(() => checkInstant(Number.NaN, 'set')).toThrow(HttpError)
  })
})
