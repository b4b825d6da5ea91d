import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { bearer } from '../support/client.js'
import { REDIRECT, oauth, pkce } from './flow.js'

/** Issue 32 item 1: the OAuth 2.1 authorization server of each world, through the front door. */
describe.each(runtimes)('agent access (OAuth 2.1) through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('publishes RFC 8414 and RFC 9728 metadata naming the sandbox as it was reached', async () => {
    const s = rt.fresh('meta')
    const as = await s.get('/.well-known/oauth-authorization-server')
    expect(as.status).toBe(200)
    const issuer = as.body.issuer as string
    expect(issuer).toMatch(/^https?:\/\/[^/]+$/)
    expect(as.body).toMatchObject({
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['service:api'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
    })
    const pr = await s.get('/.well-known/oauth-protected-resource/mcp')
    expect(pr.status).toBe(200)
    expect(pr.body).toMatchObject({
      resource: `${issuer}/mcp`,
      authorization_servers: [issuer],
      scopes_supported: ['service:api'],
    })
  })

  it('registers public clients and refuses bad metadata naming the field, registering nothing', async () => {
    const s = rt.fresh('register')
    const o = oauth(rt, s)
    const before = await o.state()
    const refused: [Record<string, unknown>, string, RegExp][] = [
      [
        { redirect_uris: ['http://example.com/cb'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be https, or http on a loopback host/,
      ],
      [
        { redirect_uris: [REDIRECT, 'https://app.example/cb#frag'] },
        'invalid_redirect_uri',
        /^redirect_uris\.1: must not carry a fragment/,
      ],
      [{ redirect_uris: [] }, 'invalid_redirect_uri', /^redirect_uris: must be a list of 1 to 10/],
      [{ redirect_uris: ['not a url'] }, 'invalid_redirect_uri', /^redirect_uris\.0: must be an absolute URL/],
      // What the parser would rewrite: the redirect would not go where it was registered.
      [
        { redirect_uris: ['https://app.example/c\nb'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be visible ASCII only/,
      ],
      [
        { redirect_uris: ['https://app.example/c\tb'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be visible ASCII only/,
      ],
      [
        { redirect_uris: ['https://app.example/c\u0001b'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be visible ASCII only/,
      ],
      [
        { redirect_uris: ['https://app.example/c b'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be visible ASCII only/,
      ],
      [
        { redirect_uris: ['https://app.example/caf\u00e9'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be visible ASCII only/,
      ],
      [
        { redirect_uris: ['https://app.example/x/../cb'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be written as it reads \("https:\/\/app\.example\/cb"\)/,
      ],
      [
        { redirect_uris: ['https://app.example\\cb'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be written as it reads/,
      ],
      [
        { redirect_uris: ['https://App.Example/cb'] },
        'invalid_redirect_uri',
        /^redirect_uris\.0: must be written as it reads \("https:\/\/app\.example\/cb"\)/,
      ],
      [
        { token_endpoint_auth_method: 'client_secret_basic' },
        'invalid_client_metadata',
        /^token_endpoint_auth_method: must be none/,
      ],
      [
        { grant_types: ['implicit'] },
        'invalid_client_metadata',
        /^grant_types\.0: must be a non-empty list of authorization_code, refresh_token/,
      ],
      [
        { response_types: ['token'] },
        'invalid_client_metadata',
        /^response_types\.0: must be a non-empty list of code/,
      ],
      [{ scope: 'admin' }, 'invalid_client_metadata', /^scope: must be service:api/],
      [{ client_name: 42 }, 'invalid_client_metadata', /^client_name: must be a string/],
    ]
    for (const [body, error, description] of refused) {
      const res = await o.register(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.error).toBe(error)
      expect(res.body.error_description).toMatch(description)
    }
    const bad = await s.send('POST', '/oauth/register', '{"redirect_uris": [')
    expect(bad.status).toBe(400)
    expect(bad.body.error).toBe('invalid_client_metadata')
    expect(await o.state()).toEqual(before)
    const ok = await o.register({ redirect_uris: [REDIRECT, 'https://app.example/cb'] })
    expect(ok.status).toBe(201)
    expect(ok.headers.get('cache-control')).toBe('no-store')
    expect(ok.body).toMatchObject({
      client_id: expect.stringMatching(/^oac_/),
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: [REDIRECT, 'https://app.example/cb'],
      client_name: 'test agent',
    })
    // Written as the parser writes it back (a bare origin without its "/" too): taken as sent.
    const exact = await o.register({
      redirect_uris: ['https://app.example', 'https://app.example/caf%C3%A9?a=1&b=%20'],
    })
    expect(exact.status, JSON.stringify(exact.body)).toBe(201)
  })

  it('authorization code with PKCE S256: state and iss come back, the token opens the API as the user', async () => {
    const s = rt.fresh('code')
    const o = oauth(rt, s)
    const issuer = (await s.get('/.well-known/oauth-authorization-server')).body.issuer
    const clientId = await o.client()
    const { verifier, challenge } = pkce()
    const back = await o.code(clientId, challenge, 'operator@fleet.test', { resource: `${issuer}/mcp` })
    expect(back.get('state')).toBe('st-1')
    expect(back.get('iss')).toBe(issuer)
    const res = await o.exchange(clientId, back.get('code')!, verifier)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'service:api',
      refresh_token: expect.stringMatching(/^rt_/),
    })
    const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString())
    expect(claims).toMatchObject({
      sub: 'usr_acme_operator',
      scope: 'service:api',
      aud: issuer,
      client_id: clientId,
      kind: 'agent',
    })
    expect(claims.exp - claims.iat).toBe(3600)
    const me = await s.as(res.body.access_token).get('/api/auth/users/me')
    expect(me.status).toBe(200)
    expect(me.body.data).toMatchObject({ user: { email: 'operator@fleet.test' }, tokenKind: 'agent' })
  })

  it('refuses what cannot go back to the client with a 400 and no redirect: unknown client, foreign redirect URI', async () => {
    const s = rt.fresh('unsendable')
    const o = oauth(rt, s)
    const clientId = await o.client()
    const { challenge } = pkce()
    const query = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }
    const unknown = await o.authorize({ ...query, client_id: 'oac_nobody' })
    expect(unknown.status).toBe(400)
    expect(unknown.headers.get('location')).toBeNull()
    expect(unknown.body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/^client_id: no client oac_nobody is registered in this sandbox/),
    })
    const foreign = await o.authorize({ ...query, redirect_uri: 'https://evil.example/cb' }, { accept: 'text/html' })
    expect(foreign.status).toBe(400)
    expect(foreign.headers.get('location')).toBeNull()
    expect(foreign.headers.get('content-type')).toMatch(/text\/html/)
    expect(await foreign.text()).toContain('redirect_uri: https://evil.example/cb is not one the client registered')
  })

  it('refuses plain or missing PKCE, other response types and foreign resources by redirecting with the error', async () => {
    const s = rt.fresh('pkce')
    const o = oauth(rt, s)
    const clientId = await o.client()
    const { challenge } = pkce()
    const before = await o.state()
    const base = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'xyz',
      prompt: 'none',
      login_hint: 'admin@fleet.test',
    }
    const cases: [Record<string, string>, string, RegExp][] = [
      [
        { ...base, code_challenge_method: 'plain' },
        'invalid_request',
        /^code_challenge_method: must be S256; plain is refused/,
      ],
      [
        { ...base, code_challenge_method: '' },
        'invalid_request',
        /^code_challenge_method: must be S256 \(absent means plain/,
      ],
      [{ ...base, code_challenge: '' }, 'invalid_request', /^code_challenge: required/],
      [{ ...base, response_type: 'token' }, 'unsupported_response_type', /^response_type: must be code/],
      [{ ...base, scope: 'admin' }, 'invalid_scope', /^scope: "admin" is not one/],
      [{ ...base, resource: 'https://elsewhere.example/mcp' }, 'invalid_target', /^resource: must be /],
      [{ ...base, login_hint: 'disabled@fleet.test' }, 'access_denied', /^user: the account is disabled/],
      [{ ...base, login_hint: 'nobody@fleet.test' }, 'login_required', /^login_hint: no account/],
    ]
    for (const [query, error, description] of cases) {
      const res = await o.authorize(query)
      expect(res.status, JSON.stringify(query)).toBe(302)
      const back = new URL(res.headers.get('location')!)
      expect(back.origin + back.pathname).toBe(REDIRECT)
      expect(back.searchParams.get('error')).toBe(error)
      expect(back.searchParams.get('error_description')).toMatch(description)
      expect(back.searchParams.get('state')).toBe('xyz')
      expect(back.searchParams.get('code')).toBeNull()
    }
    expect(await o.state()).toEqual(before)
  })

  it('the sign-in page: a form of the demo accounts; a wrong password or a disabled user is refused there', async () => {
    const s = rt.fresh('page')
    const o = oauth(rt, s)
    const clientId = await o.client()
    const { verifier, challenge } = pkce()
    const query = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'p1',
      login_hint: 'viewer@fleet.test',
    }
    const page = await o.authorize(query)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/text\/html/)
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    const html = await page.text()
    expect(html).toContain('<form method="post">')
    expect(html).toContain('test agent')
    expect(html).toContain('value="viewer@fleet.test"')
    const fields = { ...query, decision: 'allow' }
    const wrong = await o.form('/oauth/authorize', { ...fields, email: 'viewer@fleet.test', password: 'nope' })
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).toContain('Wrong e-mail or password.')
    const disabled = await o.form('/oauth/authorize', { ...fields, email: 'disabled@fleet.test', password: 'sandbox' })
    expect(disabled.status).toBe(403)
    expect(await disabled.text()).toContain('This account is disabled')
    const denied = await o.form('/oauth/authorize', { ...query, decision: 'deny' })
    expect(denied.status).toBe(303)
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied')
    const signed = await o.form('/oauth/authorize', { ...fields, email: 'viewer@fleet.test', password: 'sandbox' })
    expect(signed.status).toBe(303)
    const back = new URL(signed.headers.get('location')!).searchParams
    expect(back.get('state')).toBe('p1')
    const res = await o.exchange(clientId, back.get('code')!, verifier)
    expect(res.status).toBe(200)
    expect((await s.as(res.body.access_token).get('/api/auth/users/me')).body.data.user.email).toBe('viewer@fleet.test')
  })

  it('a wrong verifier, another client or redirect URI: invalid_grant, nothing changed, the code still good', async () => {
    const s = rt.fresh('verifier')
    const o = oauth(rt, s)
    const clientId = await o.client()
    const other = await o.client()
    const { verifier, challenge } = pkce()
    const code = (await o.code(clientId, challenge)).get('code')!
    const before = await o.state()
    const cases: [ReturnType<typeof o.exchange>, number, string, RegExp][] = [
      [
        o.exchange(clientId, code, pkce().verifier),
        400,
        'invalid_grant',
        /^code_verifier: does not match the code_challenge \(S256\)/,
      ],
      [o.exchange(clientId, code, 'short'), 400, 'invalid_request', /^code_verifier: must be 43 to 128 characters/],
      [o.exchange(other, code, verifier), 400, 'invalid_grant', /^code: was issued to another client/],
      [
        o.exchange(clientId, code, verifier, { redirect_uri: 'http://127.0.0.1:7777/other' }),
        400,
        'invalid_grant',
        /^redirect_uri: must be the one of the authorization request/,
      ],
      [o.exchange('oac_nobody', code, verifier), 401, 'invalid_client', /^client_id: no client oac_nobody/],
      [o.exchange(clientId, 'ac_forged', verifier), 400, 'invalid_grant', /^code: unknown/],
      [
        o.form('/oauth/token', { grant_type: 'password', client_id: clientId }),
        400,
        'unsupported_grant_type',
        /^grant_type: must be authorization_code or refresh_token/,
      ],
      [
        o.form('/oauth/token', {
          grant_type: 'authorization_code',
          client_id: clientId,
          code,
          code_verifier: verifier,
          client_secret: 'x',
        }),
        401,
        'invalid_client',
        /clients here are public/,
      ],
    ]
    for (const [pending, status, error, description] of cases) {
      const res = await pending
      expect(res.status, JSON.stringify(res.body)).toBe(status)
      expect(res.body).toEqual({ error, error_description: expect.stringMatching(description) })
      expect(res.headers.get('cache-control')).toBe('no-store')
    }
    const json = await s.post('/oauth/token', { grant_type: 'authorization_code' })
    expect(json.status).toBe(400)
    expect(json.body.error_description).toMatch(/^content-type: must be application\/x-www-form-urlencoded/)
    expect(await o.state()).toEqual(before)
    expect((await o.exchange(clientId, code, verifier)).status).toBe(200)
  })

  it('a code used twice revokes what it issued; a code expires after 60 s of sandbox clock', async () => {
    const s = rt.fresh('reuse')
    const o = oauth(rt, s)
    const clientId = await o.client()
    const first = pkce()
    const code = (await o.code(clientId, first.challenge)).get('code')!
    const tokens = (await o.exchange(clientId, code, first.verifier)).body
    expect((await s.as(tokens.access_token).get('/api/auth/users/me')).status).toBe(200)
    const again = await o.exchange(clientId, code, first.verifier)
    expect(again.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/^code: already used; the tokens it issued are now revoked/),
    })
    const refused = await s.as(tokens.access_token).get('/api/auth/users/me')
    expect(refused.status).toBe(401)
    expect(refused.body.message).toBe('authorization: the agent token was revoked')
    expect((await o.refresh(clientId, tokens.refresh_token)).body.error_description).toMatch(
      /^refresh_token: revoked: its authorization code was used twice/,
    )

    const late = pkce()
    const lateCode = (await o.code(clientId, late.challenge)).get('code')!
    await o.advance('61s')
    const before = await o.state()
    const expired = await o.exchange(clientId, lateCode, late.verifier)
    expect(expired.body).toEqual({
      error: 'invalid_grant',
      error_description: 'code: expired: codes live 60 s of sandbox clock',
    })
    expect(await o.state()).toEqual(before)
  })

  it('refresh: rotated on use, a reused one revokes the whole grant; access expires after 1 hour, refresh after 30 days', async () => {
    const s = rt.fresh('refresh')
    const o = oauth(rt, s)
    const t = await o.tokens()
    await o.advance('61m')
    const expired = await s.as(t.access_token).get('/api/auth/users/me')
    expect(expired.status).toBe(401)
    expect(expired.body.message).toBe('authorization: the token has expired')
    const next = await o.refresh(t.clientId, t.refresh_token)
    expect(next.status).toBe(200)
    expect(next.body.refresh_token).not.toBe(t.refresh_token)
    expect((await s.as(next.body.access_token).get('/api/auth/users/me')).status).toBe(200)
    const reused = await o.refresh(t.clientId, t.refresh_token)
    expect(reused.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(
        /^refresh_token: already used \(each works once\); the whole grant is now revoked/,
      ),
    })
    expect((await s.as(next.body.access_token).get('/api/auth/users/me')).status).toBe(401)
    expect((await o.refresh(t.clientId, next.body.refresh_token)).body.error_description).toBe(
      'refresh_token: revoked: a rotated refresh token was used again',
    )

    const u = await o.tokens()
    await o.advance('31d')
    const before = await o.state()
    const old = await o.refresh(u.clientId, u.refresh_token)
    expect(old.body).toEqual({
      error: 'invalid_grant',
      error_description: 'refresh_token: expired: refresh tokens live 30 days of sandbox clock',
    })
    expect(await o.state()).toEqual(before)
  })

  it('each world its own: a token, code or client of another x-sandbox-id is refused', async () => {
    const a = rt.fresh('world-a')
    const b = rt.fresh('world-b')
    const oa = oauth(rt, a)
    const ob = oauth(rt, b)
    const t = await oa.tokens()
    const foreign = await b.as(t.access_token).get('/api/auth/users/me')
    expect(foreign.status).toBe(401)
    expect(foreign.body.message).toBe(
      `authorization: the token was signed by sandbox ${a.id}, not this one (${b.id}): each x-sandbox-id has its own tokens`,
    )
    const bClient = await ob.client()
    const before = await ob.state()
    expect((await ob.refresh(t.clientId, t.refresh_token)).status).toBe(401)
    const refused = await ob.refresh(bClient, t.refresh_token)
    expect(refused.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/^refresh_token: unknown/),
    })
    expect(await ob.state()).toEqual(before)
  })

  it('revocation (RFC 7009): a refresh or access token ends its grant; an unknown token answers 200', async () => {
    const s = rt.fresh('revoke')
    const o = oauth(rt, s)
    const t = await o.tokens()
    expect((await o.form('/oauth/revoke', { client_id: t.clientId, token: 'whatever' })).status).toBe(200)
    const other = await o.client()
    const before = await o.state()
    const foreign = await o.form('/oauth/revoke', { client_id: other, token: t.refresh_token })
    expect(foreign.body).toEqual({
      error: 'invalid_request',
      error_description: 'token: was issued to another client; only that client may revoke it',
    })
    // No client_id is the request's shape (invalid_request, 400); an unknown one, the client's (401).
    const anonymous = await o.form('/oauth/revoke', { token: t.refresh_token })
    expect(anonymous.status).toBe(400)
    expect(anonymous.body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/^client_id: required/),
    })
    expect(await o.state()).toEqual(before)
    expect(
      (
        await o.form('/oauth/revoke', {
          client_id: t.clientId,
          token: t.refresh_token,
          token_type_hint: 'refresh_token',
        })
      ).status,
    ).toBe(200)
    expect((await s.as(t.access_token).get('/api/auth/users/me')).status).toBe(401)
    expect((await o.refresh(t.clientId, t.refresh_token)).body.error).toBe('invalid_grant')
    const u = await o.tokens()
    expect((await o.form('/oauth/revoke', { client_id: u.clientId, token: u.access_token })).status).toBe(200)
    expect((await o.refresh(u.clientId, u.refresh_token)).body.error_description).toBe(
      'refresh_token: revoked: revoked by the client (POST /oauth/revoke)',
    )
  })

  it('POST /__sandbox/tokens/agent: refuses disabled and unknown users naming the field, honours scope, gives a refresh token when asked', async () => {
    const s = rt.fresh('shortcut')
    const o = oauth(rt, s)
    const disabled = await s.control.post('/tokens/agent', { email: 'disabled@fleet.test' })
    expect(disabled.status).toBe(403)
    expect(disabled.body.message).toMatch(/^email: the account of disabled@fleet.test is disabled/)
    const unknown = await s.control.post('/tokens/agent', { email: 'nobody@fleet.test' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toMatch(/^email: no user/)
    expect((await s.control.post('/tokens/agent', { email: 'admin@fleet.test', scope: '' })).body.message).toMatch(
      /^scope: must be 1 to 10 scope names/,
    )
    expect((await s.control.post('/tokens/agent', { email: 'admin@fleet.test', refresh: 'yes' })).body.message).toMatch(
      /^refresh: /,
    )
    const narrow = await s.control.post('/tokens/agent', { email: 'admin@fleet.test', scope: 'reports:read' })
    expect(narrow.body.scope).toBe('reports:read')
    expect(narrow.body.refreshToken).toBeUndefined()
    expect((await s.as(narrow.body.token).get('/api/auth/users/me')).status).toBe(401)
    const full = await s.control.post('/tokens/agent', { email: 'admin@fleet.test', refresh: true })
    expect(full.body).toMatchObject({
      scope: 'service:api',
      clientId: 'sandbox-shortcut',
      refreshToken: expect.stringMatching(/^rt_/),
      refreshExpiresAt: expect.any(String),
    })
    const next = await o.refresh('sandbox-shortcut', full.body.refreshToken)
    expect(next.status).toBe(200)
    expect((await s.as(next.body.access_token).get('/api/auth/users/me')).status).toBe(200)
  })

  it('the inspector lists agent sessions: client, user, scopes, expiry, revoked or not', async () => {
    const s = rt.fresh('sessions')
    const o = oauth(rt, s)
    const t = await o.tokens('operator@fleet.test')
    await o.tokens('viewer@fleet.test')
    await o.form('/oauth/revoke', { client_id: t.clientId, token: t.refresh_token })
    const { sessions, clients } = (await s.control.get('/agents')).body
    expect(clients).toHaveLength(2)
    expect(sessions).toHaveLength(2)
    expect(sessions[0]).toMatchObject({
      client: { id: t.clientId, name: 'test agent' },
      user: { email: 'operator@fleet.test' },
      scope: 'service:api',
      status: 'revoked',
      revokedWhy: 'revoked by the client (POST /oauth/revoke)',
    })
    expect(sessions[1]).toMatchObject({ user: { email: 'viewer@fleet.test' }, status: 'active', revokedAt: null })
    // The access token's expiry is in whole seconds (a JWT's exp), the refresh token's not.
    const gap =
      Date.parse(sessions[1].refreshExpiresAt) - Date.parse(sessions[1].accessExpiresAt) - (30 * 86_400_000 - 3_600_000)
    expect(gap >= 0 && gap < 1000, String(gap)).toBe(true)
  })

  it('keeps tokens, codes, verifiers and passwords out of the journal, its details, the HAR and the snapshot', async () => {
    const s = rt.fresh('redact')
    const o = oauth(rt, s)
    const clientId = await o.client()
    const { verifier, challenge } = pkce()
    const query = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'r',
    }
    const signed = await o.form('/oauth/authorize', {
      ...query,
      email: 'admin@fleet.test',
      password: 'sandbox',
      decision: 'allow',
    })
    const code = new URL(signed.headers.get('location')!).searchParams.get('code')!
    const tokens = (await o.exchange(clientId, code, verifier)).body
    const rotated = (await o.refresh(clientId, tokens.refresh_token)).body
    await o.form('/oauth/revoke', { client_id: clientId, token: rotated.refresh_token })
    const { requests } = (await s.control.get('/requests')).body
    const details = await Promise.all(
      requests.map(async (r: { id: number }) => (await s.control.get(`/requests/${r.id}`)).body),
    )
    expect(details.map((d: { path: string }) => d.path)).toEqual([
      '/oauth/register',
      '/oauth/authorize',
      '/oauth/token',
      '/oauth/token',
      '/oauth/revoke',
    ])
    expect(details[1].response.headers.location).toBe('[not kept]')
    expect(JSON.parse(details[2].response.body)).toMatchObject({
      access_token: '[not kept]',
      refresh_token: '[not kept]',
      token_type: 'Bearer',
    })
    const everything =
      JSON.stringify(details) +
      (await s.control.get('/requests.har')).text +
      JSON.stringify(await s.control.get('/snapshot').then((r) => r.body))
    for (const secret of [
      code,
      verifier,
      tokens.access_token,
      tokens.refresh_token,
      rotated.access_token,
      rotated.refresh_token,
      'password=sandbox',
    ])
      expect(everything).not.toContain(secret)
  })

  it('bad input to every endpoint: a 4xx naming what is wrong, never a crash, nothing changed', async () => {
    const s = rt.fresh('bad-input')
    const o = oauth(rt, s)
    const clientId = await o.client()
    const before = await o.state()
    const formType = { 'content-type': 'application/x-www-form-urlencoded' }
    const sends: [string, string, BodyInit | undefined, Record<string, string>][] = [
      ['POST', '/oauth/token', 'grant_type=refresh_token&grant_type=authorization_code', formType],
      [
        'POST',
        '/oauth/token',
        `grant_type=refresh_token&client_id=${clientId}&refresh_token=rt_${'0'.repeat(16)}_${'f'.repeat(64)}`,
        formType,
      ],
      ['POST', '/oauth/token', new Uint8Array([0xff, 0xfe, 0x3d, 0x80]), formType],
      ['POST', '/oauth/token', 'x='.padEnd(20_000, 'a'), formType],
      ['POST', '/oauth/token', '{"grant_type":"refresh_token"}', { 'content-type': 'application/json' }],
      ['POST', '/oauth/token', undefined, {}],
      [
        'POST',
        '/oauth/token',
        `grant_type=authorization_code&client_id=${clientId}&code=ac_x&code_verifier=${'a'.repeat(129)}`,
        formType,
      ],
      [
        'POST',
        '/oauth/token',
        `grant_type=authorization_code&client_id=${clientId}&code=ac_x&code_verifier=${'a'.repeat(43)}&resource=https://evil.example`,
        formType,
      ],
      ['POST', '/oauth/revoke', 'token=x&client_id=oac_nobody', formType],
      ['POST', '/oauth/revoke', `client_id=${clientId}&token=x&token_type_hint=id_token`, formType],
      ['POST', '/oauth/register', '[]', { 'content-type': 'application/json' }],
      [
        'POST',
        '/oauth/register',
        JSON.stringify({ redirect_uris: Array(11).fill(REDIRECT) }),
        { 'content-type': 'application/json' },
      ],
      [
        'POST',
        '/oauth/register',
        JSON.stringify({ redirect_uris: [`https://x.example/${'a'.repeat(3000)}`] }),
        { 'content-type': 'application/json' },
      ],
      ['POST', '/oauth/register', 'redirect_uris=x', formType],
      ['POST', '/oauth/authorize', 'client_id=oac_nobody', formType],
      ['POST', '/oauth/authorize', `client_id=${clientId}&client_id=${clientId}`, formType],
      ['GET', `/oauth/authorize?client_id=${clientId}&client_id=x`, undefined, {}],
      ['GET', '/oauth/authorize?%zz=1', undefined, {}],
      [
        'GET',
        `/oauth/authorize?client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&code_challenge=${'a'.repeat(44)}&code_challenge_method=S256`,
        undefined,
        {},
      ],
    ]
    for (const [method, path, body, headers] of sends) {
      const res = await rt.fetch(path, { method, body, redirect: 'manual', headers: { ...s.headers, ...headers } })
      const text = await res.text()
      const where = `${method} ${path.slice(0, 80)} ${String(body).slice(0, 60)}`
      expect(res.status, where).toBeGreaterThanOrEqual(300)
      expect(res.status, where).toBeLessThan(500)
      if (res.status === 302)
        expect(new URL(res.headers.get('location')!).searchParams.get('error'), where).toBe('invalid_request')
      else if (res.status !== 405 && res.headers.get('content-type')?.includes('json'))
        expect(JSON.parse(text).error_description ?? JSON.parse(text).message, where).toMatch(/^[\w.-]+: /)
    }
    expect(await o.state()).toEqual(before)
  })

  it('agent access survives a snapshot and its restore', async () => {
    const s = rt.fresh('snapshot')
    const o = oauth(rt, s)
    const t = await o.tokens()
    const snapshot = (await s.control.get('/snapshot')).body
    expect(snapshot.oauth.grants).toHaveLength(1)
    expect((await s.control.post('/reset')).status).toBe(200)
    expect((await o.refresh(t.clientId, t.refresh_token)).status).toBe(401)
    expect((await s.control.put('/snapshot', snapshot)).status).toBe(200)
    const next = await o.refresh(t.clientId, t.refresh_token)
    expect(next.status).toBe(200)
    expect((await s.as(next.body.access_token).get('/api/auth/users/me')).status).toBe(200)
    const bad = await s.control.put('/snapshot', { ...snapshot, oauth: { ...snapshot.oauth, grants: 'nope' } })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/^oauth\.grants: /)
  })
})

/** Issue 32 item 3: the scenarios reach agents. */
describe.each(runtimes)('agent scenarios through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('session-expired expires agent access tokens (refresh still works); per request only that request', async () => {
    const s = rt.fresh('agent-expired')
    const o = oauth(rt, s)
    const t = await o.tokens()
    const once = await s.as(t.access_token).get('/api/auth/users/me', { 'x-sandbox-scenario': 'session-expired' })
    expect(once.status).toBe(401)
    expect(once.headers.get('x-sandbox-fault')).toBe('session-expired')
    expect((await s.as(t.access_token).get('/api/auth/users/me')).status).toBe(200)
    await s.scenarios(['session-expired'])
    const expired = await s.as(t.access_token).get('/api/auth/users/me')
    expect(expired.status).toBe(401)
    expect(expired.body.message).toBe('authorization: the token has expired')
    expect(expired.headers.get('x-sandbox-fault')).toBe('session-expired')
    const next = await o.refresh(t.clientId, t.refresh_token)
    expect(next.status).toBe(200)
    expect((await s.as(next.body.access_token).get('/api/auth/users/me')).status).toBe(200)
  })

  it('refresh-revoked answers invalid_grant to every refresh and changes nothing', async () => {
    const s = rt.fresh('refresh-revoked')
    const o = oauth(rt, s)
    const t = await o.tokens()
    await s.scenarios(['refresh-revoked'])
    const before = await o.state()
    const refused = await o.refresh(t.clientId, t.refresh_token)
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({
      error: 'invalid_grant',
      error_description: 'refresh_token: revoked (scenario refresh-revoked): sign in again',
    })
    expect(refused.headers.get('x-sandbox-fault')).toBe('refresh-revoked')
    expect((await o.form('/oauth/token', { grant_type: 'refresh_token', pad: 'a'.repeat(20_000) })).status).toBe(413)
    expect(await o.state()).toEqual(before)
    expect((await o.tokens()).access_token).toBeTruthy()
    await s.scenarios([])
    expect((await o.refresh(t.clientId, t.refresh_token)).status).toBe(200)
  })
})
