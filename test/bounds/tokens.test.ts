import { SignJWT, decodeJwt } from 'jose'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/** The key tokens were once signed with: derived from the seed, which is public. */
const oldKey = (seed: number) => new TextEncoder().encode(`fleet-sandbox-signing-key:${seed}`)

const forge = (claims: Record<string, unknown>, sub: string, seed: number, nowS: number) =>
  new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('fleet-sandbox')
    .setSubject(sub)
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + 3600)
    .sign(oldKey(seed))

describe.each(runtimes)('signed tokens through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('refuses tokens signed with a key derived from the seed (agent and portal)', async () => {
    const s = rt.fresh('forged', ADMIN_TOKEN)
    const { seed, now } = (await s.control.get('/health')).body
    const nowS = Math.floor(Date.parse(now) / 1000)
    const real = (await s.control.post('/tokens/agent', { email: 'admin@fleet.test' })).body.token
    const claims = decodeJwt(real)
    expect((await s.as(real).get('/api/auth/users/me')).status).toBe(200)

    const agent = await forge(
      { kind: 'agent', clientId: claims.clientId, scope: claims.scope },
      claims.sub!,
      seed,
      nowS,
    )
    const forgedAgent = await s.as(agent).get('/api/auth/users/me')
    expect(forgedAgent.status).toBe(401)

    const portal = await forge(
      { kind: 'portal', clientId: 'cli_acme', roles: ['invoices', 'support'] },
      'pct_owner',
      seed,
      nowS,
    )
    expect((await s.as(portal).get('/api/portal/invoices')).status).toBe(401)
  })

  it('keeps a token valid across a snapshot round trip, into a reset sandbox and another one', async () => {
    const s = rt.fresh('keyed', ADMIN_TOKEN)
    const token = (await s.control.post('/tokens/agent', { email: 'operator@fleet.test' })).body.token
    const snapshot = (await s.control.get('/snapshot')).body
    expect(snapshot.signingKey).toMatch(/^[0-9a-f]{64}$/)

    // A reset draws a new key: the old token no longer verifies...
    expect((await s.control.post('/reset')).status).toBe(200)
    expect((await s.as(token).get('/api/auth/users/me')).status).toBe(401)
    // ...until the snapshot that signed it is back.
    expect((await s.control.put('/snapshot', snapshot)).status).toBe(200)
    expect((await s.as(token).get('/api/auth/users/me')).status).toBe(200)

    const other = rt.fresh('keyed-copy', ADMIN_TOKEN)
    expect((await other.as(token).get('/api/auth/users/me')).status).toBe(401)
    expect((await other.control.put('/snapshot', snapshot)).status).toBe(200)
    expect((await other.as(token).get('/api/auth/users/me')).status).toBe(200)
  })

  it('gives each sandbox its own key, even with the same seed', async () => {
    const a = (await rt.fresh('key-a').control.get('/snapshot')).body.signingKey
    const b = (await rt.fresh('key-b').control.get('/snapshot')).body.signingKey
    expect(a).not.toBe(b)
  })

  it('refuses a malformed key in a snapshot, naming the field', async () => {
    const s = rt.fresh('bad-key')
    const snapshot = (await s.control.get('/snapshot')).body
    const res = await s.control.put('/snapshot', { ...snapshot, signingKey: 'seed-1' })
    expect(res.status).toBe(400)
    expect(res.body.message).toContain('signingKey')
  })
})
