import { describe, expect, it } from 'vitest'
import { DAY } from '../clock/clock.js'
import { SESSION_TTL_MS, SessionStore } from './sessions.js'

const T0 = Date.parse('2026-11-22T12:00:00.000Z')

describe('SessionStore: 30 days, sliding (spec, Authentication)', () => {
  it('lives 30 days from its last activity', () => {
    const store = new SessionStore()
    const s = store.open('usr_1', 'cli_1', T0)
    expect(SESSION_TTL_MS).toBe(30 * DAY)
    expect(s.expiresAt).toBe(T0 + 30 * DAY)
    expect(store.touch(s, T0 + 30 * DAY - 1)).toBe(true)
  })

  it('31 days idle: expired', () => {
    const store = new SessionStore()
    const s = store.open('usr_1', 'cli_1', T0)
    expect(store.touch(s, T0 + 31 * DAY)).toBe(false)
  })

  it('activity every 29 days keeps it alive for 90 days and beyond', () => {
    const store = new SessionStore()
    const s = store.open('usr_1', 'cli_1', T0)
    for (let day = 29; day <= 116; day += 29) expect(store.touch(s, T0 + day * DAY), `day ${day}`).toBe(true)
    expect(s.expiresAt).toBe(T0 + 146 * DAY)
  })

  it('expires at exactly 30 days idle, and later activity does not renew it', () => {
    const store = new SessionStore()
    const s = store.open('usr_1', 'cli_1', T0)
    expect(store.touch(s, T0 + 30 * DAY)).toBe(false)
    expect(store.touch(s, T0 + 40 * DAY)).toBe(false)
    expect(s.expiresAt).toBe(T0 + 30 * DAY)
  })

  it('expireAll ends every session now (session-expired); later sign-ins are unaffected', () => {
    const store = new SessionStore()
    const a = store.open('usr_1', 'cli_1', T0)
    const b = store.open('usr_2', 'cli_1', T0)
    store.expireAll(T0 + DAY)
    expect(store.touch(a, T0 + DAY)).toBe(false)
    expect(store.touch(b, T0 + DAY)).toBe(false)
    const c = store.open('usr_1', 'cli_1', T0 + DAY, 60_000)
    expect(store.touch(c, T0 + DAY + 59_000)).toBe(true)
    expect(store.touch(c, T0 + DAY + 59_000 + 60_000)).toBe(false)
  })

  it('round-trips through all() and the constructor (snapshots)', () => {
    const store = new SessionStore()
    store.open('usr_1', 'cli_1', T0, undefined, 'impersonation', 'usr_0', 'ses_fixed')
    const copy = new SessionStore(store.all())
    expect(copy.all()).toEqual(store.all())
    expect(copy.get('ses_fixed')?.impersonatorId).toBe('usr_0')
  })
})
