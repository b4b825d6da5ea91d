import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/**
 * Scenarios on a timeline (docs/contract.md "The app's side"): "rate-limited for two minutes, then
 * degraded for five, then healthy", played out by moving the sandbox clock. The clock is
 * frozen first, so "exactly at until" is an instant the test names, never a race.
 */
describe.each(runtimes)('scenarios on a timeline through $name', (runtime) => {
  const rt = useSandbox(runtime)

  async function frozen() {
    const s = await rt.isolated('admin@fleet.test', 'timeline')
    const clock = await s.control.post('/clock', { freeze: true })
    return { s, start: Date.parse(clock.body.now) }
  }
  const iso = (ms: number) => new Date(ms).toISOString()

  it('plays three windows as the clock moves: rate-limited, then degraded, then healthy', async () => {
    const { s, start } = await frozen()
    const put = await s.scenarios([
      { name: 'rate-limited', options: { failures: 100 }, until: '+2m' },
      { name: 'degraded', options: { rate: 1 }, from: '+2m', until: '+7m' },
    ])
    expect(put.schedule).toEqual([
      { name: 'rate-limited', options: { failures: 100, retryAfter: 1 }, from: null, until: iso(start + 120_000) },
      { name: 'degraded', options: { rate: 1 }, from: iso(start + 120_000), until: iso(start + 420_000) },
    ])
    const active = (body: { scenarios: { name: string; active: boolean }[] }) =>
      body.scenarios.filter((x) => x.active).map((x) => x.name)
    expect(active(put)).toEqual(['rate-limited'])

    const first = await s.get('/api/notifications')
    expect(first.status).toBe(429)
    expect(first.headers.get('x-sandbox-fault')).toBe('rate-limited')
    expect((await s.control.get('/health')).body.scenarios).toEqual(['rate-limited'])

    // Exactly at rate-limited's until, which is degraded's from: degraded shapes, rate-limited does not.
    await s.control.post('/clock', { advanceBy: '2m' })
    const second = await s.get('/api/notifications')
    expect([502, 503, 504]).toContain(second.status)
    expect(second.headers.get('x-sandbox-fault')).toBe('degraded')
    expect((await s.control.get('/health')).body.scenarios).toEqual(['degraded'])
    const listed = (await s.control.get('/scenarios')).body
    expect(active(listed)).toEqual(['degraded'])
    expect(listed.schedule).toHaveLength(2)

    // One millisecond before degraded's until it still shapes; exactly at until it is over.
    await s.control.post('/clock', { set: iso(start + 420_000 - 1) })
    expect((await s.get('/api/notifications')).headers.get('x-sandbox-fault')).toBe('degraded')
    await s.control.post('/clock', { advanceBy: 0.001 })
    const third = await s.get('/api/notifications')
    expect(third.status).toBe(200)
    expect(third.headers.get('x-sandbox-fault')).toBeNull()
    expect((await s.control.get('/health')).body.scenarios).toEqual([])
    expect(active((await s.control.get('/scenarios')).body)).toEqual([])

    // Moving the clock back moves back through the timeline.
    await s.control.post('/clock', { set: iso(start + 60_000) })
    expect((await s.get('/api/notifications')).status).toBe(429)
  })

  it('takes ISO bounds, and a window that opens later starts its scenario afresh', async () => {
    const { s, start } = await frozen()
    await s.scenarios([
      { name: 'rate-limited', options: { failures: 1 }, from: iso(start + 60_000), until: iso(start + 120_000) },
    ])
    expect((await s.get('/api/notifications')).status).toBe(200)
    await s.control.post('/clock', { advanceBy: 60 })
    const shaped = await s.get('/api/notifications')
    expect(shaped.status).toBe(429)
    expect((await s.get('/api/notifications')).status).toBe(200)
  })

  it('refuses bad windows with a 400 naming the field and the rule, and changes nothing', async () => {
    const { s } = await frozen()
    await s.scenarios(['slow'])
    const bad: [unknown, string][] = [
      [{ name: 'degraded', from: '+5m', until: '+2m' }, 'active.0.until: must be later than from'],
      [{ name: 'degraded', from: '+2m', until: '+2m' }, 'active.0.until: must be later than from'],
      [{ name: 'degraded', from: 'tomorrow' }, 'active.0.from: must be an ISO 8601 date-time or +N with s, m, h or d'],
      [{ name: 'degraded', until: '+2w' }, 'active.0.until: must be an ISO 8601 date-time or +N'],
      [{ name: 'degraded', until: 120 }, 'active.0.until: must be an ISO 8601 date-time or +N'],
      [{ name: 'degraded', from: '2026-13-40T00:00:00Z' }, 'active.0.from: must be an ISO 8601 date-time'],
      [{ name: 'degraded', to: '+2m' }, 'active.0: unknown key \\"to\\"; an entry takes name, options, from, until'],
    ]
    for (const [entry, message] of bad) {
      const res = await s.control.put('/scenarios', { active: [entry] })
      expect(res.status, JSON.stringify(entry)).toBe(400)
      expect(JSON.stringify(res.body)).toContain(message)
    }
    const after = (await s.control.get('/scenarios')).body
    expect(after.schedule).toEqual([{ name: 'slow', options: { ms: 1000 }, from: null, until: null }])
  })

  it('keeps the schedule in snapshots: a restored sandbox plays the same timeline', async () => {
    const { s, start } = await frozen()
    await s.scenarios([{ name: 'empty', from: '+1h', until: '+2h' }])
    const snapshot = (await s.control.get('/snapshot')).body
    expect(snapshot.scenarios).toEqual([
      { name: 'empty', options: {}, from: iso(start + 3_600_000), until: iso(start + 7_200_000) },
    ])

    const other = await rt.isolated('admin@fleet.test', 'timeline-restored')
    expect((await other.control.put('/snapshot', snapshot)).status).toBe(200)
    expect((await other.control.get('/scenarios')).body.schedule).toEqual([
      { name: 'empty', options: {}, from: iso(start + 3_600_000), until: iso(start + 7_200_000) },
    ])
    expect((await other.control.get('/health')).body.scenarios).toEqual([])
    await other.control.post('/clock', { advanceBy: '1h' })
    expect((await other.control.get('/health')).body.scenarios).toEqual(['empty'])
  })
})
