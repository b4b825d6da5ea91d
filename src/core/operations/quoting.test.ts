import { describe, expect, it } from 'vitest'
import { findCity, quoteOptions, roadKm } from './quoting.js'

describe('shipment quotes', () => {
  const now = Date.parse('2026-11-20T12:00:00Z') // a Friday
  const box = { weightKg: 2, lengthCm: 30, widthCm: 20, heightCm: 10 }

  it('reads cities without accents or case, and addresses by their last part', () => {
    expect(findCity('CONCEPCION')?.[0]).toBe('Concepción')
    expect(findCity('Av. Pajaritos 1234, Maipú')?.[0]).toBe('Maipú')
    expect(findCity('Atlantis')).toBeUndefined()
  })

  it('measures road distance with a floor for the same city', () => {
    expect(roadKm(findCity('Santiago')!, findCity('Santiago')!)).toBe(5)
    const km = roadKm(findCity('Santiago')!, findCity('Puerto Montt')!)
    expect(km).toBeGreaterThan(1000)
    expect(km).toBeLessThan(1500)
  })

  it('counts business days for the delivery date', () => {
    const quote = quoteOptions({ origin: 'Santiago', destination: 'Providencia', packages: [box] }, now)
    const nextDay = quote.options.find((o) => o.etaDays === 1)!
    expect(nextDay.estimatedDelivery).toBe('2026-11-23')
  })

  it('is a pure function of the input and the date', () => {
    const body = { origin: 'Arica', destination: 'Punta Arenas', packages: [box, { ...box, weightKg: 40 }] }
    expect(quoteOptions(body, now)).toEqual(quoteOptions(structuredClone(body), now))
  })
})
