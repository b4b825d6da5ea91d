import { describe, expect, it } from 'vitest'
import { bearer, json } from '../support/client.js'
import { NOW, runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const DAY = 86_400_000

describe.each(runtimes)('the virtual clock through $name', (runtime) => {
  const rt = useSandbox(runtime)

  /** A fresh isolated sandbox and a way to move its clock. */
  function sandbox() {
    const s = rt.fresh('clock')
    const clock = (body: unknown) => s.control.post('/clock', body)
    const me = async (token: string) => (await s.as(token).get('/api/auth/users/me')).status
    return { ...s, clock, me }
  }

  it('reads {now, frozen}, running from the configured start', async () => {
    const s = sandbox()
    const res = await (await rt.fetch('/__sandbox/clock', { headers: s.headers })).json()
    expect(Object.keys(res).sort()).toEqual(['frozen', 'now'])
    expect(res.frozen).toBe(false)
    expect(Date.parse(res.now)).toBeGreaterThanOrEqual(Date.parse(NOW))
  })

  it('advancing 31 days expires an idle session; a new sign-in works', async () => {
    const s = sandbox()
    const token = await s.signIn()
    expect(await s.me(token)).toBe(200)
    const moved = await s.clock({ advanceBy: '31d' })
    expect(moved.status).toBe(200)
    expect(Date.parse(moved.body.now) - Date.parse(NOW)).toBeGreaterThanOrEqual(31 * DAY)
    const refused = await rt.fetch('/api/auth/users/me', bearer(token, s.headers))
    expect(refused.status).toBe(401)
    expect((await refused.json()).message).toContain('session has expired')
    expect(await s.me(await s.signIn())).toBe(200)
  })

  it('activity every 29 days keeps a session alive for 90 days and more', async () => {
    const s = sandbox()
    const token = await s.signIn()
    for (let day = 29; day <= 116; day += 29) {
      await s.clock({ advanceBy: 29 * 86_400 })
      expect(await s.me(token), `day ${day}`).toBe(200)
    }
  })

  it('sets an ISO date-time, with or without an offset, and can freeze', async () => {
    const s = sandbox()
    expect((await s.clock({ set: '2030-01-01T00:00:00Z', freeze: true })).body).toEqual({
      now: '2030-01-01T00:00:00.000Z',
      frozen: true,
    })
    expect((await s.clock({ set: '2030-06-01T12:00:00+02:00' })).body.now).toBe('2030-06-01T10:00:00.000Z')
    expect((await s.clock({ advanceBy: '1h30m' })).body.now).toBe('2030-06-01T11:30:00.000Z')
    const health = await (await rt.fetch('/__sandbox/health', { headers: s.headers })).json()
    expect(health.now).toBe('2030-06-01T11:30:00.000Z')
  })

  it.each([
    [{}, 'body: give advanceBy, set or freeze'],
    [{ advanceBy: 'soon' }, 'advanceBy: "soon" is not a duration'],
    [{ advanceBy: '-3d' }, 'advanceBy: "-3d" is not a duration'],
    [{ advanceBy: -5 }, 'advanceBy: must be a non-negative number of seconds'],
    [{ advanceBy: '99999999d' }, 'advanceBy: the clock must stay between 1970-01-01 and 9999-12-31'],
    [{ advanceBy: true }, 'advanceBy: must be seconds or a duration such as "31d"'],
    [{ set: 'tomorrow' }, 'set: must be an ISO 8601 date-time'],
    [{ set: '1900-01-01T00:00:00Z' }, 'set: the clock must stay between'],
    [{ set: '2030-01-01T00:00:00Z', advanceBy: '1d' }, 'advanceBy: give either advanceBy or set, not both'],
    [{ freeze: 'yes' }, 'freeze: must be a boolean'],
  ])('refuses %j with a 400 naming the field and leaves the clock alone', async (body, message) => {
    const s = sandbox()
    const frozen = (await s.clock({ set: '2031-03-03T03:03:03Z', freeze: true })).body
    const res = await s.clock(body)
    expect(res.status).toBe(400)
    expect(res.body.message).toContain(message)
    expect((await s.clock({ advanceBy: 0 })).body).toEqual(frozen)
  })

  it('drives the default 30-day notification window and the timestamps of new records', async () => {
    const s = sandbox()
    const token = await s.signIn()
    const list = async (query = '') =>
      (await (await rt.fetch(`/api/notifications${query}`, bearer(token, s.headers))).json()).data
    await s.clock({ advanceBy: '12d', freeze: true })
    const now = Date.parse((await s.clock({ advanceBy: 0 })).body.now)
    const window = await list()
    const explicit = await list(
      `?startDate=${new Date(now - 30 * DAY).toISOString()}&endDate=${new Date(now).toISOString()}`,
    )
    const atStart = await list(`?startDate=${new Date(Date.parse(NOW) - 30 * DAY).toISOString()}&endDate=${NOW}`)
    expect(window.pagination.total).toBe(explicit.pagination.total)
    expect(window.pagination.total).not.toBe(atStart.pagination.total)
    const target = window.notifications[0]
    const patched = await (
      await rt.fetch(`/api/notifications/${target.id}`, {
        method: 'PATCH',
        headers: { ...bearer(token, s.headers).headers, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'reviewed' }),
      })
    ).json()
    expect(patched.data.updatedAt).toBe(new Date(now).toISOString())
    await rt.fetch('/api/auth/password-reset/request', json({ email: 'admin@fleet.test' }, s.headers))
    const outbox = await (await rt.fetch('/__sandbox/outbox', { headers: s.headers })).json()
    expect(outbox.outbox[0].at).toBe(new Date(now).toISOString())
  })
})
