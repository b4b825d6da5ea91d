import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('degraded and slow through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('degraded at rate 1: every read fails with 502, 503 or 504 in the standard shape; writes go through', async () => {
    const s = await rt.isolated()
    await s.scenarios([{ name: 'degraded', options: { rate: 1 } }])
    const statuses = new Set<number>()
    for (let i = 0; i < 12; i++) {
      const res = await s.get('/api/notifications')
      expect([502, 503, 504]).toContain(res.status)
      expect(res.headers.get('x-sandbox-fault')).toBe('degraded')
      const body = await res.json()
      expect(body).toEqual({
        statusCode: res.status,
        message: expect.stringContaining('gateway'),
        error: expect.any(String),
      })
      statuses.add(res.status)
    }
    expect(statuses.size).toBeGreaterThan(1)
    const write = await s.send('PATCH', '/api/notifications/000000000000000000000000', { status: 'reviewed' })
    expect(write.status).toBe(404)
    expect(write.headers.get('x-sandbox-fault')).toBeNull()
  })

  it('degraded repeats exactly for the same seed, and rate 0 is healthy', async () => {
    const run = async () => {
      const s = await rt.isolated()
      await s.scenarios([{ name: 'degraded', options: { rate: 0.5 } }])
      const out: number[] = []
      for (let i = 0; i < 16; i++) out.push((await s.get('/api/auth/users/me')).status)
      return out
    }
    const a = await run()
    const b = await run()
    expect(a).toEqual(b)
    expect(a).toContain(200)
    expect(a.some((st) => st >= 502)).toBe(true)
    const s = await rt.isolated()
    await s.scenarios([{ name: 'degraded', options: { rate: 0 } }])
    for (let i = 0; i < 5; i++) expect((await s.get('/api/auth/users/me')).status).toBe(200)
  })

  it('slow delays the answer by ms (journal durationMs) and marks it', async () => {
    const s = await rt.isolated()
    const res = await s.get('/api/auth/users/me', { 'x-sandbox-scenario': 'slow;ms=60' })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-fault')).toBe('slow')
    const ranged = await s.get('/api/auth/users/me', { 'x-sandbox-scenario': 'slow;min=20;max=40' })
    expect(ranged.headers.get('x-sandbox-fault')).toBe('slow')
    const [fixed, range] = (await s.control.get('/requests')).body.requests.slice(-2)
    expect(fixed.durationMs).toBeGreaterThanOrEqual(59)
    expect(range.durationMs).toBeGreaterThanOrEqual(19)
  })

  it('slow never blocks: other requests are answered while one waits', async () => {
    const s = await rt.isolated()
    let settled = false
    const pending = s
      .get('/api/auth/users/me', { 'x-sandbox-scenario': 'slow;ms=1500' })
      .then((r) => ((settled = true), r))
    const quick = await s.get('/api/notifications')
    expect(quick.status).toBe(200)
    expect(settled).toBe(false)
    expect((await pending).status).toBe(200)
  })

  it.each([
    ['slow;min=5', 'x-sandbox-scenario: slow.options.max: min and max go together'],
    ['slow;min=50;max=10', 'x-sandbox-scenario: slow.options.min: must not be above max'],
    ['slow;ms=999999', 'x-sandbox-scenario: slow.options.ms: must be at most 60000'],
    ['slow;fast=1', 'x-sandbox-scenario: slow.options: unknown option fast; slow takes ms, min, max, routes'],
    ['empty;x=1', 'x-sandbox-scenario: empty.options: unknown option x; empty takes routes'],
    ['degraded;rate=2', 'x-sandbox-scenario: degraded.options.rate: must be at most 1'],
    ['degraded;rate', 'x-sandbox-scenario: "rate" in degraded must be key=value'],
  ])('refuses %s with a 400 naming the option', async (header, message) => {
    const s = await rt.isolated()
    const res = await s.get('/api/auth/users/me', { 'x-sandbox-scenario': header })
    expect(res.status).toBe(400)
    expect((await res.json()).message).toContain(message)
  })
})
