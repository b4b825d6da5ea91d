import * as oauth from 'oauth4webapi'
import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { REDIRECT, oauth as flow } from './flow.js'

/**
 * Issue 32: the authorization server proven with a certified client nobody here wrote
 * (oauth4webapi): discovery and metadata validation, the code exchange with PKCE, the refresh
 * exchange, revocation. Every request of its own goes through the global fetch.
 */
describe.each(runtimes)('oauth4webapi against the sandbox through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('discovers, exchanges a code with PKCE, refreshes, revokes; a reused refresh token is invalid_grant', async () => {
    const s = rt.fresh('o4w')
    const origin = rt.url ?? 'http://sandbox.test'
    const options = { [oauth.allowInsecureRequests]: true, headers: s.headers }
    const resource = new URL(`${origin}/mcp`)
    const rs = await oauth.processResourceDiscoveryResponse(
      resource,
      await oauth.resourceDiscoveryRequest(resource, options),
    )
    expect(rs.authorization_servers).toEqual([origin])
    const issuer = new URL(rs.authorization_servers![0])
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }),
    )
    expect(as.code_challenge_methods_supported).toEqual(['S256'])

    const clientId = await flow(rt, s).client()
    const client: oauth.Client = { client_id: clientId }
    const auth = oauth.None()
    const verifier = oauth.generateRandomCodeVerifier()
    const challenge = await oauth.calculatePKCECodeChallenge(verifier)
    const state = oauth.generateRandomState()
    const url = new URL(as.authorization_endpoint!)
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      scope: 'service:api',
      resource: resource.href,
      prompt: 'none',
      login_hint: 'operator@fleet.test',
    }))
      url.searchParams.set(k, v)
    const redirected = await fetch(url, { redirect: 'manual', headers: s.headers })
    expect(redirected.status).toBe(302)
    // Checks state and iss (RFC 9207) against the metadata.
    const params = oauth.validateAuthResponse(as, client, new URL(redirected.headers.get('location')!), state)

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT, verifier, options),
    )
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'service:api' })
    const me = await s.as(tokens.access_token).get('/api/auth/users/me')
    expect(me.body.data.user.email).toBe('operator@fleet.test')

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, options),
    )
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    const reuse = oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, options),
    )
    await expect(reuse).rejects.toMatchObject({ error: 'invalid_grant' })

    const fresh = await flow(rt, s).tokens()
    const freshClient = { client_id: fresh.clientId }
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, freshClient, auth, fresh.refresh_token, options),
    )
    expect((await s.as(fresh.access_token).get('/api/auth/users/me')).status).toBe(401)
    const revoked = oauth.processRefreshTokenResponse(
      as,
      freshClient,
      await oauth.refreshTokenGrantRequest(as, freshClient, auth, fresh.refresh_token, options),
    )
    await expect(revoked).rejects.toMatchObject({ error: 'invalid_grant' })
  })
})
