import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client'
import { startServer } from '../../src/adapters/server/index.js'
import { NOW } from '../support/runtimes.js'

// The whole agent flow driven by the official MCP SDK's client and its OAuth provider interface:
// nothing here speaks OAuth itself. The provider is what an agent host implements: it keeps
// what the SDK hands it and, where a person would sign in, follows the authorization URL with
// `login_hint` + `prompt=none` (docs/agents.md) and hands the code back to the SDK.
const REDIRECT = 'http://127.0.0.1:8976/callback'

class TestProvider implements OAuthClientProvider {
  client?: StoredOAuthClientInformation
  saved?: StoredOAuthTokens
  verifier = ''
  /** The code the sign-in redirected with, or the error it named. */
  redirected?: URL
  authorizations = 0
  registrations = 0

  get redirectUrl() {
    return REDIRECT
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'sdk-flow test',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }
  state() {
    return 'st-' + this.authorizations
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.registrations++
    this.client = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  async redirectToAuthorization(url: URL) {
    this.authorizations++
    url.searchParams.set('login_hint', 'admin@fleet.test')
    url.searchParams.set('prompt', 'none')
    const res = await fetch(url, { redirect: 'manual' })
    expect(res.status).toBe(302)
    this.redirected = new URL(res.headers.get('location')!)
  }
}

describe('the MCP SDK client drives the OAuth flow end to end (hono server)', () => {
  let server: Awaited<ReturnType<typeof startServer>>
  const provider = new TestProvider()
  const clock = async (body: object) => {
    const res = await fetch(server.url + '/__sandbox/clock', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(200)
  }
  const connect = async () => {
    const client = new Client({ name: 'sdk-flow', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(server.url + '/mcp'), { authProvider: provider })
    try {
      await client.connect(transport)
      return { client, transport }
    } catch (error) {
      await client.close().catch(() => {})
      return { error, transport }
    }
  }
  const signInAgain = async (transport: StreamableHTTPClientTransport) => {
    const code = provider.redirected?.searchParams.get('code')
    expect(code, `redirected to ${provider.redirected}`).toBeTruthy()
    // The callback's parameters whole: the SDK checks `iss` (RFC 9207) before it reads the code.
    await transport.finishAuth(provider.redirected!.searchParams)
  }

  beforeAll(async () => {
    server = await startServer({ seed: 1, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
    await clock({ freeze: true })
  })
  afterAll(async () => server?.close())

  it('discovers, registers, signs in with PKCE, gets a token and calls a tool', async () => {
    const first = await connect()
    // No token yet: the SDK reads the 401's resource metadata, the server's metadata,
    // registers, and sends the person to sign in.
    expect(first.error).toBeInstanceOf(UnauthorizedError)
    expect(provider.registrations).toBe(1)
    expect(provider.authorizations).toBe(1)
    expect(provider.redirected!.origin + provider.redirected!.pathname).toBe(REDIRECT)
    expect(provider.redirected!.searchParams.get('state')).toBe('st-0')
    expect(provider.redirected!.searchParams.get('iss')).toBe(server.url)
    await signInAgain(first.transport)
    expect(provider.saved?.access_token).toBeTruthy()
    expect(provider.saved?.refresh_token).toBeTruthy()
    expect(provider.saved?.scope).toContain('service:api')

    const { client } = await connect()
    expect(client).toBeDefined()
    const { tools } = await client!.listTools()
    expect(tools.length).toBeGreaterThan(10)
    const list = tools.find((t) => /notification/i.test(t.name) && /list/i.test(t.name))
    expect(list, tools.map((t) => t.name).join(', ')).toBeDefined()
    const result = await client!.callTool({ name: list!.name, arguments: {} })
    expect(result.isError).toBeFalsy()
    await client!.close()

    // No token, code or verifier is shown where requests are: the journal's details, the HAR.
    const { requests } = await (await fetch(server.url + '/__sandbox/requests')).json()
    const details = await Promise.all(
      requests.map(async (e: { id: number }) => (await fetch(`${server.url}/__sandbox/requests/${e.id}`)).text()),
    )
    const shown = details.join('\n') + (await (await fetch(server.url + '/__sandbox/requests.har')).text())
    expect(shown).toContain('/mcp')
    expect(shown).toContain('Bearer <redacted>')
    for (const secret of [provider.saved!.access_token, provider.saved!.refresh_token!, provider.verifier])
      expect(shown).not.toContain(secret)
  })

  it('61 minutes later the access token has expired and the SDK refreshes it, rotating the refresh token', async () => {
    const before = provider.saved!
    await clock({ advanceBy: '61m' })
    const { client, error } = await connect()
    expect(error).toBeUndefined()
    expect(provider.authorizations).toBe(1)
    expect(provider.saved!.access_token).not.toBe(before.access_token)
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token)
    const { tools } = await client!.listTools()
    expect(tools.length).toBeGreaterThan(10)
    await client!.close()

    // The rotated-out refresh token is spent: using it again revokes the whole family.
    const reuse = await fetch(server.url + '/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: before.refresh_token!,
        client_id: provider.client!.client_id,
      }),
    })
    expect(reuse.status).toBe(400)
    expect((await reuse.json()).error).toBe('invalid_grant')
    const revoked = await fetch(server.url + '/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: provider.saved!.refresh_token!,
        client_id: provider.client!.client_id,
      }),
    })
    expect((await revoked.json()).error).toBe('invalid_grant')
  })

  it('a refresh 31 days after sign-in is refused and the SDK asks the person to sign in again', async () => {
    // A fresh sign-in (the last family was revoked above), then a month passes.
    provider.saved = undefined
    const first = await connect()
    expect(first.error).toBeInstanceOf(UnauthorizedError)
    await signInAgain(first.transport)
    const authorizations = provider.authorizations
    const refresh = provider.saved!.refresh_token!
    await clock({ advanceBy: '31d' })
    const again = await connect()
    expect(again.error).toBeInstanceOf(UnauthorizedError)
    expect(provider.authorizations).toBe(authorizations + 1)
    // What the SDK was told: the refresh token has expired.
    const res = await fetch(server.url + '/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: provider.client!.client_id,
      }),
    })
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body.error).toBe('invalid_grant')
    expect(body.error_description).toMatch(/expired/)
  })
})
