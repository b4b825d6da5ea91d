import dtePending from '../../../scenarios/dte-pending.js'
import { describe, expect, it } from 'vitest'
import { GENERIC_RUT, rejectionOf, syncAnswer, trackId, validRut } from './authority.js'
import { nextFolio, folioRange } from './folios.js'

describe('the simulated tax authority', () => {
  it.each([
    ['76.123.456-0', true],
    ['76123456-0', true],
    ['77.751.136-K', true],
    ['77.751.136-k', true],
    ['76.123.456-1', false],
    ['76.123.456', false],
    ['abc', false],
    [GENERIC_RUT, true],
  ])('validRut(%s) is %s', (rut, valid) => expect(validRut(rut)).toBe(valid))

  it.each([
    ['76.123.456-0', undefined],
    [GENERIC_RUT, 'generic-receiver'],
    ['66666666-6', 'generic-receiver'],
    ['76.123.456-1', 'check-digit'],
  ])('rejection rule for %s: %s', (rut, rule) => expect(rejectionOf(rut)?.rule).toBe(rule))

  it('settles a pending DTE on the first sync without scenarios, by the rules', () => {
    expect(syncAnswer('76.123.456-0')).toBe('SII_ACCEPTED')
    expect(syncAnswer(GENERIC_RUT)).toBe('SII_REJECTED')
  })

  it('under dte-pending answers pending pendingSyncs times, then the outcome, whatever the rules say', () => {
    const options = { pendingSyncs: 2, outcome: 'rejected' as const }
    // The scenario's hook answers before the rules, which would reject GENERIC_RUT.
    const sync = dtePending.taxAuthority!.sync!
    expect([0, 1, 2, 3].map((n) => sync(options, n) ?? syncAnswer('76.123.456-0'))).toEqual([
      'SII_PENDING',
      'SII_PENDING',
      'SII_REJECTED',
      'SII_REJECTED',
    ])
    expect(sync({ pendingSyncs: 0, outcome: 'accepted' }, 0) ?? syncAnswer(GENERIC_RUT)).toBe('SII_ACCEPTED')
  })

  it('gives ten-digit numeric TrackIDs', () => {
    expect(trackId(() => 0)).toBe('1000000000')
    expect(trackId(() => 0.999999999999)).toMatch(/^9\d{9}$/)
  })
})

describe('folios', () => {
  it('starts at the client range and never reuses a folio', () => {
    expect(nextFolio('cli_acme', [])).toBe(folioRange('cli_acme').from)
    expect(nextFolio('cli_acme', [1001, 1005, 1003])).toBe(1006)
    expect(nextFolio('cli_unknown', [])).toBe(1)
  })

  it('refuses with 409 once the range is exhausted', () => {
    const { to } = folioRange('cli_acme')
    expect(() => nextFolio('cli_acme', [to])).toThrow(
      expect.objectContaining({ status: 409, message: expect.stringMatching(/^folio: /) }),
    )
  })
})
