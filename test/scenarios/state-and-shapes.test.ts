import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('forbidden, empty, error-shapes and composition through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('forbidden: 403 on protected routes, users/me open with no permissions, sign-out open, 401 still first', async () => {
    const s = await rt.isolated()
    await s.scenarios(['forbidden'])
    const list = await s.get('/api/notifications')
    expect(list.status).toBe(403)
    expect(list.headers.get('x-sandbox-fault')).toBe('forbidden')
    expect(await list.json()).toEqual({ error: 'permission: notifications:read is required for this operation' })
    const access = await s.get('/api/auth/service-access')
    expect(access.status).toBe(403)
    const me = await s.get('/api/auth/users/me')
    expect(me.status).toBe(200)
    expect((await me.json()).data.permissions).toEqual([])
    const anonymous = await s.as(null).get('/api/notifications')
    expect(anonymous.status).toBe(401)
    // Public routes are not protected.
    expect(
      (await s.as(null).send('POST', '/api/auth/password-reset/request', { email: 'admin@fleet.test' })).status,
    ).toBe(200)
    expect((await s.send('POST', '/api/session-auth/sign-out')).status).toBe(200)
  })

  it('forbidden reaches the client portal too: 403 naming the role', async () => {
    const s = await rt.isolated()
    await s.as(null).send('POST', '/api/portal/auth/magic-link', { email: 'owner@acme.test' })
    const link = (await s.control.get('/outbox?kind=magic-link')).body.outbox[0]
    const verified = await (await s.as(null).send('POST', '/api/portal/auth/verify', { token: link.token })).json()
    const portal = verified.data.token
    expect((await s.as(portal).get('/api/portal/invoices')).status).toBe(200)
    const res = await s.as(portal).get('/api/portal/invoices', { 'x-sandbox-scenario': 'forbidden' })
    expect(res.status).toBe(403)
    expect(res.headers.get('x-sandbox-fault')).toBe('forbidden')
    const body = await res.json()
    expect(body.message ?? body.error).toBe('role: the contact needs the functional role "invoices"')
  })

  it('empty: lists and counts are empty and marked; switching it off brings the data back', async () => {
    const s = await rt.isolated()
    await s.scenarios(['empty'])
    const res = await s.get('/api/notifications')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-sandbox-fault')).toBe('empty')
    const { data } = await res.json()
    expect(data.notifications).toEqual([])
    expect(data.pagination.total).toBe(0)
    expect(data.unreviewedCount).toBe(0)
    expect((await (await s.get('/api/notification-config/rules?module=fleet')).json()).data).toEqual([])
    await s.scenarios([])
    expect((await (await s.get('/api/notifications')).json()).data.notifications.length).toBeGreaterThan(0)
  })

  it('error-shapes: errors rotate through the three shapes, the status stays', async () => {
    const s = await rt.isolated()
    await s.scenarios(['error-shapes'])
    const bodies = []
    for (let i = 0; i < 4; i++) {
      const res = await s.get('/api/notification-config/rules')
      expect(res.status).toBe(400)
      expect(res.headers.get('x-sandbox-fault')).toBe('error-shapes')
      bodies.push(await res.json())
    }
    const message = 'module: is required'
    expect(bodies).toEqual([
      { statusCode: 400, message, error: 'Bad Request' },
      { error: message },
      { message },
      { statusCode: 400, message, error: 'Bad Request' },
    ])
    const fine = await s.get('/api/notification-config/rules?module=fleet')
    expect(fine.status).toBe(200)
    expect(fine.headers.get('x-sandbox-fault')).toBeNull()
  })

  it('scenarios compose: several shape one answer and x-sandbox-fault lists them', async () => {
    const s = await rt.isolated()
    await s.scenarios(['error-shapes'])
    const res = await s.get('/api/notifications', {
      'x-sandbox-scenario': 'slow;ms=5, rate-limited;failures=1;retryAfter=null',
    })
    expect(res.status).toBe(429)
    expect(res.headers.get('x-sandbox-fault')).toBe('rate-limited,error-shapes,slow')
    expect(res.headers.get('retry-after')).toBeNull()
    expect(Object.keys(await res.json())).toEqual(['statusCode', 'message', 'error'])
    const journal = (await s.control.get('/requests')).body.requests.at(-1)
    expect(journal.faults).toEqual(['rate-limited', 'error-shapes', 'slow'])
  })

  it('an unknown scenario in x-sandbox-scenario is a 400 naming the header; control routes ignore it', async () => {
    const s = await rt.isolated()
    const res = await s.get('/api/notifications', { 'x-sandbox-scenario': 'slow, teleport' })
    expect(res.status).toBe(400)
    expect((await res.json()).error).toMatch(/^x-sandbox-scenario: unknown scenario "teleport"; known: .*rate-limited/)
    const health = await rt.fetch('/__sandbox/health', { headers: { ...s.headers, 'x-sandbox-scenario': 'teleport' } })
    expect(health.status).toBe(200)
  })
})
