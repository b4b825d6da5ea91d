import { describe, expect, it } from 'vitest'
import { Clock } from '../sandbox/clock.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { REPRO_MAX_BYTES, REPRO_MAX_STEPS, ReproBudget, ReproLog } from './log.js'

const world = (active: unknown[] = []) => {
  const clock = new Clock(Date.parse('2026-11-22T12:00:00Z'), Date.now, true)
  return { clock, iso: () => clock.iso(), active, overrides: { list: () => [] } } as unknown as Sandbox
}

describe('the repro log is bounded (docs/bounds.md)', () => {
  it(`keeps ${REPRO_MAX_STEPS} steps; the next one stops it, says why and frees what it held`, () => {
    const log = new ReproLog()
    const s = world()
    log.begin(s)
    for (let i = 0; i < REPRO_MAX_STEPS; i++) log.changed(s, 'clock')
    expect(log.steps).toHaveLength(REPRO_MAX_STEPS)
    expect(log.reason).toBeNull()
    log.changed(s, 'clock')
    expect(log.reason).toBe(`more than ${REPRO_MAX_STEPS} steps since the last reset (the repro log's bound, docs/bounds.md)`)
    expect(log.steps).toEqual([])
    log.changed(s, 'clock')
    expect(log.steps).toEqual([])
    // A reset begins a new log.
    log.begin(s)
    expect(log.reason).toBeNull()
  })

  it(`keeps at most ${REPRO_MAX_BYTES / 1_048_576} MB`, () => {
    const log = new ReproLog()
    const big = world([{ name: 'x'.repeat(10_000), options: {} }])
    log.begin(big)
    let n = 0
    while (!log.reason && n < REPRO_MAX_STEPS) (log.changed(big, 'scenarios'), n++)
    expect(log.reason).toMatch(/^more than 4 MB of steps since the last reset/)
    expect(n).toBeLessThan(REPRO_MAX_STEPS)
    expect(log.bytes).toBe(0)
  })

  it('a restore or replaced collections stop it', () => {
    const log = new ReproLog()
    const s = world()
    log.begin(s)
    log.changed(s, 'fixtures')
    expect(log.reason).toMatch(/^collections were replaced in place \(--watch\)/)
  })

  it('all logs of an app share one budget; a released log gives its bytes back', () => {
    const budget = new ReproBudget(1000)
    const [a, b] = [new ReproLog(budget), new ReproLog(budget)]
    const s = world()
    a.begin(s)
    b.begin(s)
    for (let i = 0; i < 6; i++) a.changed(s, 'clock')
    expect(budget.used).toBe(600)
    for (let i = 0; i < 5; i++) b.changed(s, 'clock')
    expect(b.reason).toBe('the repro logs of all sandboxes together reached their bound (1000 bytes, docs/bounds.md)')
    expect(budget.used).toBe(600)
    a.release()
    expect(budget.used).toBe(0)
  })
})
