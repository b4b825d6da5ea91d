import { describe, expect, it } from 'vitest'
import { type SandboxEvent, SandboxEvents } from './events.js'

const event: SandboxEvent = {
  type: 'state',
  data: { change: 'clock', seed: 1, now: '2026-11-22T12:00:00.000Z', scenarios: [] },
}

describe('SandboxEvents', () => {
  it('sends to every listener until it leaves, and ends them all at once', () => {
    const events = new SandboxEvents()
    const got: string[] = []
    let ended = 0
    const off = events.on({ send: () => got.push('a'), end: () => ended++ })
    events.on({ send: () => got.push('b'), end: () => ended++ })
    events.emit(event)
    off()
    events.emit(event)
    expect(got).toEqual(['a', 'b', 'b'])
    events.end()
    expect(ended).toBe(1)
    expect(events.size).toBe(0)
  })

  it('drops a listener that throws instead of failing the emitter (a request)', () => {
    const events = new SandboxEvents()
    events.on({
      send: () => {
        throw new Error('closed')
      },
      end: () => undefined,
    })
    expect(() => events.emit(event)).not.toThrow()
    expect(events.size).toBe(0)
  })
})
