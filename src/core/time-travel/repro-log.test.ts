import { beforeAll, describe, expect, it } from 'vitest'
import { createSandboxApp } from '../../apps/page-app.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { REPRO_MAX_BYTES, REPRO_MAX_STEPS, ReproBudget, ReproLog } from './repro-log.js'

let s: Sandbox
beforeAll(async () => {
  s = await createSandboxApp({ seed: 1, now: '2026-11-22T12:00:00Z', size: 'small' }).ready()
})

describe('the repro log is bounded (docs/bounds.md), and a bundle is always there', () => {
  it(`keeps ${REPRO_MAX_STEPS} steps; the next one begins it again from the world as it is, freeing what it held`, () => {
    const log = new ReproLog()
    log.begin(s)
    for (let i = 0; i < REPRO_MAX_STEPS; i++) log.changed(s, 'clock')
    expect(log.steps).toHaveLength(REPRO_MAX_STEPS)
    expect(log.base).toBeNull()
    log.changed(s, 'clock')
    expect(log.reason).toBeNull()
    expect(log.base?.why).toBe(
      `more than ${REPRO_MAX_STEPS} steps since the log began (the repro log's bound, docs/bounds.md)`,
    )
    expect(log.steps).toEqual([])
    // The base holds every part a bundle carries but the records (found from the journal when a bundle is made).
    expect(Object.keys(log.base!.values).sort()).toEqual([
      'clock',
      'draws',
      'nextId',
      'oauth',
      'outbox',
      'overrides',
      'scenarioState',
      'scenarios',
      'seed',
    ])
    log.changed(s, 'clock')
    expect(log.steps).toHaveLength(1)
    // A reset begins a new log at the seed.
    log.begin(s)
    expect(log.base).toBeNull()
  })

  it(`keeps at most ${REPRO_MAX_BYTES / 1_048_576} MB of steps`, () => {
    const log = new ReproLog()
    const before = s.active
    s.active = [{ name: 'x'.repeat(10_000), options: {} }]
    try {
      log.begin(s)
      let n = 0
      while (!log.base && n < REPRO_MAX_STEPS) (log.changed(s, 'scenarios'), n++)
      expect(log.base?.why).toMatch(/^more than 4 MB of steps since the log began/)
      expect(n).toBeLessThan(REPRO_MAX_STEPS)
      expect(log.bytes).toBe(0)
    } finally {
      s.active = before
    }
  })

  it('a restore, replaced collections or a rewind begin it again at a base, naming why', () => {
    for (const [change, why] of [
      ['restore', /^the world was restored from a snapshot/],
      ['fixtures', /^collections were replaced in place \(--watch\)/],
      ['rewind', /^the world was rewound/],
    ] as const) {
      const log = new ReproLog()
      log.begin(s)
      log.changed(s, 'clock')
      log.changed(s, change)
      expect(log.steps).toEqual([])
      expect(log.base?.why).toMatch(why)
    }
  })

  it('all logs of an app share one budget; a log past it begins again, a base past it says why; a released log gives its bytes back', () => {
    // A clock step's bytes: small (the clock's value), whatever the clock reads.
    const probe = new ReproLog()
    probe.begin(s)
    probe.changed(s, 'clock')
    const step = probe.bytes
    expect(step).toBeLessThan(200)
    const budget = new ReproBudget(10 * step)
    const [a, b] = [new ReproLog(budget), new ReproLog(budget)]
    a.begin(s)
    b.begin(s)
    for (let i = 0; i < 9; i++) a.changed(s, 'clock')
    expect(budget.used).toBe(9 * step)
    b.changed(s, 'clock')
    expect(budget.used).toBe(10 * step)
    b.changed(s, 'clock')
    // b's second step did not fit: its steps are gone, and its base (the world's parts) does not fit what is left either.
    expect(b.steps).toEqual([])
    expect(b.reason).toMatch(/^the world's parts are past the repro log's bound/)
    expect(budget.used).toBe(9 * step)
    a.release()
    b.release()
    expect(budget.used).toBe(0)
  })
})
