import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('session-expired through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('expires every existing session (401) while new sign-ins work; switching it off revives none', async () => {
    const s = await rt.isolated()
    expect((await s.get('/api/auth/users/me')).status).toBe(200)
    await s.scenarios(['session-expired'])
    const refused = await s.get('/api/auth/users/me')
    expect(refused.status).toBe(401)
    expect(refused.headers.get('x-sandbox-fault')).toBe('session-expired')
    expect((await refused.json()).message).toContain('session has expired')
    // The fixed impersonation session existed too.
    expect((await s.as('ses_impersonation_operator').get('/api/auth/users/me')).status).toBe(401)
    const fresh = await s.signIn()
    const ok = await s.as(fresh).get('/api/auth/users/me')
    expect(ok.status).toBe(200)
    expect(ok.headers.get('x-sandbox-fault')).toBeNull()
    await s.scenarios([])
    expect((await s.get('/api/auth/users/me')).status).toBe(401)
    expect((await s.as(fresh).get('/api/auth/users/me')).status).toBe(200)
  })

  it('gives new sign-ins the lifetime ttl (seconds) on the sandbox clock', async () => {
    const s = await rt.isolated()
    await s.scenarios([{ name: 'session-expired', options: { ttl: 60 } }])
    const short = await s.signIn()
    expect((await s.as(short).get('/api/auth/users/me')).status).toBe(200)
    await s.control.post('/clock', { advanceBy: '59s' })
    expect((await s.as(short).get('/api/auth/users/me')).status).toBe(200)
    // Activity slid it 60 s forward from the last request.
    await s.control.post('/clock', { advanceBy: '61s' })
    expect((await s.as(short).get('/api/auth/users/me')).status).toBe(401)
  })

  it('per request (x-sandbox-scenario): that request answers 401 and no state changes', async () => {
    const s = await rt.isolated()
    const once = await s.get('/api/notifications', { 'x-sandbox-scenario': 'session-expired' })
    expect(once.status).toBe(401)
    expect(once.headers.get('x-sandbox-fault')).toBe('session-expired')
    expect((await once.json()).error).toContain('session has expired')
    expect((await s.get('/api/notifications')).status).toBe(200)
    // An API token is no session: not affected.
    expect(
      (await s.as('atk_sandbox_admin').get('/api/auth/users/me', { 'x-sandbox-scenario': 'session-expired' })).status,
    ).toBe(200)
  })

  it('refuses bad options with a 400 naming the option', async () => {
    const s = await rt.isolated()
    const res = await s.control.put('/scenarios', { active: [{ name: 'session-expired', options: { ttl: 0 } }] })
    expect(res.status).toBe(400)
    expect((await res.json()).message).toBe('active.0: session-expired.options.ttl: must be at least 1')
    expect((await s.control.get('/health')).body.scenarios).toEqual([])
  })
})
