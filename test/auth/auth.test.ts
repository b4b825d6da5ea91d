import { describe, expect, it } from 'vitest'
import { LEGACY_JWT } from '../../fixtures/accounts.js'
import { bearer, json, signIn } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('authentication through $name', (runtime) => {
  const rt = useSandbox(runtime)
  const me = (token: string, sid: Record<string, string> = {}) => rt.fetch('/api/auth/users/me', bearer(token, sid))

  it('signs in: token only in set-auth-token, body {user:{id,email}}', async () => {
    const res = await rt.fetch(
      '/api/session-auth/sign-in/email',
      json({ email: 'admin@fleet.test', password: 'sandbox' }, rt.fresh('sign-in').headers),
    )
    expect(res.status).toBe(200)
    const token = res.headers.get('set-auth-token')!
    expect(token).toMatch(/^ses_/)
    const body = await res.json()
    expect(body).toEqual({ user: { id: 'usr_acme_admin', email: 'admin@fleet.test' } })
    expect(JSON.stringify(body)).not.toContain(token)
  })

  it('refuses wrong credentials with 401 and the disabled account with 403', async () => {
    const sid = rt.fresh('refused').headers
    const wrong = await rt.fetch(
      '/api/session-auth/sign-in/email',
      json({ email: 'admin@fleet.test', password: 'nope' }, sid),
    )
    expect(wrong.status).toBe(401)
    const unknown = await rt.fetch(
      '/api/session-auth/sign-in/email',
      json({ email: 'ghost@fleet.test', password: 'sandbox' }, sid),
    )
    expect(unknown.status).toBe(401)
    const disabled = await rt.fetch(
      '/api/session-auth/sign-in/email',
      json({ email: 'disabled@fleet.test', password: 'sandbox' }, sid),
    )
    expect(disabled.status).toBe(403)
    const missing = await rt.fetch('/api/session-auth/sign-in/email', json({ email: 'admin@fleet.test' }, sid))
    expect(missing.status).toBe(400)
    expect((await missing.json()).message).toContain('password: is required')
  })

  it('users/me shows identity and permissions per role', async () => {
    const sid = rt.fresh('me').headers
    const body = await (await me(await signIn(rt, 'viewer@fleet.test', sid), sid)).json()
    expect(body.status).toBe('success')
    expect(body.data.user.email).toBe('viewer@fleet.test')
    expect(body.data.client).toEqual({ id: 'cli_acme', name: 'Acme Logistics' })
    expect(body.data.role).toBe('viewer')
    expect(body.data.permissions).toContain('notifications:read')
    expect(body.data.permissions).not.toContain('notifications:review')
  })

  it('a viewer cannot review notifications (403); an operator can', async () => {
    const viewer = await rt.isolated('viewer@fleet.test', 'review')
    const list = await (await viewer.get('/api/notifications?limit=1')).json()
    const id = list.data.notifications[0].id
    expect((await viewer.send('PATCH', `/api/notifications/${id}`, { status: 'reviewed' })).status).toBe(403)
    const operator = await viewer.user('operator@fleet.test')
    expect((await operator.send('PATCH', `/api/notifications/${id}`, { status: 'reviewed' })).status).toBe(200)
  })

  it('sign-out invalidates only the current session', async () => {
    const sid = rt.fresh('sign-out').headers
    const a = await signIn(rt, 'admin@fleet.test', sid)
    const b = await signIn(rt, 'admin@fleet.test', sid)
    expect((await rt.fetch('/api/session-auth/sign-out', { method: 'POST', ...bearer(a, sid) })).status).toBe(200)
    expect((await me(a, sid)).status).toBe(401)
    expect((await me(b, sid)).status).toBe(200)
  })

  it('accepts the atk_ API token and refuses unknown atk_ tokens and legacy JWTs', async () => {
    expect((await me('atk_sandbox_admin')).status).toBe(200)
    expect((await me('atk_nope')).status).toBe(401)
    const legacy = await me(LEGACY_JWT)
    expect(legacy.status).toBe(401)
    expect((await legacy.json()).message).toContain('legacy')
  })

  it('the removed /api/auth endpoints answer 404', async () => {
    for (const path of ['login', 'refresh', 'logout', 'session/upgrade']) {
      expect((await rt.fetch(`/api/auth/${path}`, json({}, rt.fresh('removed').headers))).status).toBe(404)
    }
  })

  it('sessions slide: activity every 29 days keeps one alive for 90, 31 idle days expire it', async () => {
    const s = rt.fresh('slide')
    const sid = s.headers
    const c = s.control
    const token = await signIn(rt, 'admin@fleet.test', sid)
    for (let day = 29; day <= 90; day += 29) {
      await c.post('/clock', { advanceBy: '29d' })
      expect((await rt.fetch('/api/auth/users/me', bearer(token, sid))).status).toBe(200)
    }
    await c.post('/clock', { advanceBy: '31d' })
    const expired = await rt.fetch('/api/auth/users/me', bearer(token, sid))
    expect(expired.status).toBe(401)
    expect((await expired.json()).message).toContain('expired')
  })

  it('agent JWTs work like a session for an hour', async () => {
    const s = rt.fresh('agent')
    const sid = s.headers
    const { token, expiresAt } = (await s.control.post('/tokens/agent', { email: 'operator@fleet.test' })).body
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now() - 86_400_000 * 365)
    const ok = await rt.fetch('/api/auth/users/me', bearer(token, sid))
    expect(ok.status).toBe(200)
    expect((await ok.json()).data.tokenKind).toBe('agent')
    await s.control.post('/clock', { advanceBy: '61m' })
    expect((await rt.fetch('/api/auth/users/me', bearer(token, sid))).status).toBe(401)
  })

  it('password reset: always 200, token to the outbox, confirm sets the password and ends sessions', async () => {
    const s = rt.fresh('reset')
    const sid = s.headers
    const old = await signIn(rt, 'operator@fleet.test', sid)
    const ghost = await rt.fetch('/api/auth/password-reset/request', json({ email: 'ghost@fleet.test' }, sid))
    expect(ghost.status).toBe(200)
    const real = await rt.fetch('/api/auth/password-reset/request', json({ email: 'operator@fleet.test' }, sid))
    expect(real.status).toBe(200)
    const outbox = await s.outbox()
    expect(outbox).toHaveLength(1)
    expect(outbox[0]).toMatchObject({
      kind: 'password-reset',
      to: 'operator@fleet.test',
      subject: expect.any(String),
      ref: 'usr_acme_operator',
    })
    expect(Object.keys(outbox[0]).sort()).toEqual(['at', 'id', 'kind', 'ref', 'subject', 'to', 'token'])
    const short = await rt.fetch(
      '/api/auth/password-reset/confirm',
      json({ token: outbox[0].token, password: 'short' }, sid),
    )
    expect(short.status).toBe(400)
    const confirm = await rt.fetch(
      '/api/auth/password-reset/confirm',
      json({ token: outbox[0].token, password: 'new-password-1' }, sid),
    )
    expect(confirm.status).toBe(200)
    expect((await rt.fetch('/api/auth/users/me', bearer(old, sid))).status).toBe(401)
    expect(
      (
        await rt.fetch(
          '/api/auth/password-reset/confirm',
          json({ token: outbox[0].token, password: 'again-password' }, sid),
        )
      ).status,
    ).toBe(400)
    await signIn(rt, 'operator@fleet.test', sid, 'new-password-1')
  })

  describe('service-access, rule by rule', () => {
    const access = (token: string, headers: Record<string, string> = {}) =>
      rt.fetch('/api/auth/service-access', bearer(token, headers))

    it('answers the link for a direct session of a linked, allowed user', async () => {
      const sid = rt.fresh('linked').headers
      const res = await access(await signIn(rt, 'admin@fleet.test', sid), sid)
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body).toEqual({
        status: 'success',
        data: {
          userId: 'usr_acme_admin',
          clientId: 'cli_acme',
          serviceUserId: 'svc-user-admin-001',
          serviceTenantId: 'tenant-acme',
          authenticatedAt: expect.any(String),
        },
      })
    })

    it('refuses API tokens, agent tokens and impersonation (rule 5)', async () => {
      expect((await access('atk_sandbox_admin')).status).toBe(403)
      const s = rt.fresh('rule-5')
      const { token } = (await s.control.post('/tokens/agent', { email: 'admin@fleet.test' })).body
      expect((await access(token, s.headers)).status).toBe(403)
      const imp = await access('ses_impersonation_operator')
      expect(imp.status).toBe(403)
      expect((await imp.json()).message).toContain('impersonation')
    })

    it('refuses everyone while the integration is disabled (rule 1)', async () => {
      const s = rt.fresh('integration-off')
      const sid = s.headers
      const snapshot = (await s.control.get('/snapshot')).body
      snapshot.integrations[0].enabled = false
      await s.control.put('/snapshot', snapshot)
      const res = await access(await signIn(rt, 'admin@fleet.test', sid), sid)
      expect(res.status).toBe(403)
      expect((await res.json()).message).toContain('not enabled')
    })

    it('refuses a user without a link (rule 4) and a tenant off the allow-list (rule 2)', async () => {
      const sid = rt.fresh('rules-2-4').headers
      expect((await access(await signIn(rt, 'operator@fleet.test', sid), sid)).status).toBe(403)
      const other = await access(await signIn(rt, 'admin@other.test', sid), sid)
      expect(other.status).toBe(403)
      expect((await other.json()).message).toContain('allow-list')
    })
  })
})
