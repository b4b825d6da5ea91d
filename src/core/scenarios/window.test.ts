import { describe, expect, it } from 'vitest'
import { HttpError } from '../http/reply.js'
import { entered, fixWindow, inWindow, parseBound } from './window.js'

const NOW = Date.parse('2026-11-22T12:00:00.000Z')
const at = (ms: number) => new Date(NOW + ms).toISOString()
const entry = (from?: string | null, until?: string | null) => ({ name: 'degraded', options: {}, from, until })

describe('scenario windows', () => {
  it('holds from and excludes until: exactly at from is shaped, exactly at until is healthy', () => {
    const w = entry(at(0), at(60_000))
    expect(inWindow(w, NOW - 1)).toBe(false)
    expect(inWindow(w, NOW)).toBe(true)
    expect(inWindow(w, NOW + 59_999)).toBe(true)
    expect(inWindow(w, NOW + 60_000)).toBe(false)
    expect(inWindow(entry(null, at(0)), NOW - 1)).toBe(true)
    expect(inWindow(entry(at(0), null), NOW + 1e12)).toBe(true)
    expect(inWindow(entry(), NOW)).toBe(true)
  })

  it('fixes relative bounds on the clock when set, in UTC ISO', () => {
    expect(fixWindow(entry('+30s', '+2m'), NOW, 'active.0')).toEqual({
      name: 'degraded',
      options: {},
      from: at(30_000),
      until: at(120_000),
    })
    expect(fixWindow(entry(null, '+1d'), NOW, 'active.0')).toEqual({
      name: 'degraded',
      options: {},
      from: null,
      until: at(86_400_000),
    })
    expect(fixWindow(entry('2026-11-22T13:00:00+01:00', '+1h'), NOW, 'x')).toEqual({
      name: 'degraded',
      options: {},
      from: at(0),
      until: at(3_600_000),
    })
    // No window: the entry as it was, without window keys (snapshots of before stay the same).
    expect(fixWindow(entry(), NOW, 'x')).toEqual({ name: 'degraded', options: {} })
  })

  it('refuses an empty or reversed window and a bound the clock cannot show, naming the field', () => {
    const refused = (f: () => unknown) => {
      try {
        f()
      } catch (error) {
        expect(error).toBeInstanceOf(HttpError)
        return (error as HttpError).message
      }
      throw new Error('not refused')
    }
    expect(refused(() => fixWindow(entry('+2m', '+2m'), NOW, 'active.1'))).toMatch(
      /^active\.1\.until: must be later than from/,
    )
    expect(refused(() => fixWindow(entry(at(0), at(-1)), NOW, 'active.0'))).toMatch(
      /^active\.0\.until: must be later than from/,
    )
    expect(refused(() => fixWindow(entry(null, '+999999999d'), NOW, 'active.0'))).toMatch(
      /^active\.0\.until: the clock must stay between/,
    )
  })

  it('reads bounds strictly: ISO date-times with an offset, or +N with s, m, h or d', () => {
    for (const ok of [
      '+0s',
      '+90s',
      '+2m',
      '+1h',
      '+7d',
      '2026-11-22T12:00:00Z',
      '2026-11-22T12:00:00.123+03:00',
      '2026-11-22T12:00Z',
    ]) {
      expect(parseBound(ok, 'from')).toBe(ok)
    }
    expect(parseBound(undefined, 'from')).toBeNull()
    expect(parseBound(null, 'from')).toBeNull()
    for (const bad of [
      '',
      '2m',
      '+2',
      '+2w',
      '-2m',
      '+1.5h',
      'tomorrow',
      '2026-11-22',
      '2026-11-22T12:00:00',
      '2026-02-30T25:00:00Z',
      120,
      {},
      true,
    ]) {
      expect(() => parseBound(bad, 'active.0.from'), JSON.stringify(bad)).toThrow(
        'active.0.from: must be an ISO 8601 date-time or +N with s, m, h or d',
      )
    }
  })

  it('enters a window when the clock crosses its from, whichever way it got there', () => {
    const w = entry(at(60_000), at(120_000))
    expect(entered(w, NOW, NOW + 60_000)).toBe(true)
    expect(entered(w, NOW + 60_000, NOW + 61_000)).toBe(false) // already inside
    expect(entered(w, NOW, NOW + 120_000)).toBe(false) // jumped over it
    expect(entered(w, NOW + 200_000, NOW + 60_000)).toBe(false) // came back from after it: its from was passed before
    expect(entered(entry(null, at(1)), NOW - 5, NOW)).toBe(false)
  })
})
