import { createHash, randomBytes } from 'node:crypto'
import type { Client } from '../support/client.js'
import { answer } from '../support/client.js'
import type { Harness } from '../support/sandbox.js'

/** The OAuth flow as a test client drives it (docs/agents.md), against one world. */
export const REDIRECT = 'http://127.0.0.1:7777/callback'

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

export function oauth(rt: Harness, s: Client) {
  const headers = s.headers
  const form = (path: string, fields: Record<string, string>, more: Record<string, string> = {}) =>
    rt
      .fetch(path, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', ...more },
        body: new URLSearchParams(fields).toString(),
      })
      .then(answer)
  const self = {
    form,
    register: async (body: Record<string, unknown> = {}) =>
      await s.post('/oauth/register', { redirect_uris: [REDIRECT], client_name: 'test agent', ...body }),
    async client(body: Record<string, unknown> = {}): Promise<string> {
      const res = await self.register(body)
      if (res.status !== 201) throw new Error(`register answered ${res.status}: ${JSON.stringify(res.body)}`)
      return res.body.client_id
    },
    authorize: (query: Record<string, string>, more: Record<string, string> = {}) =>
      rt
        .fetch(`/oauth/authorize?${new URLSearchParams(query)}`, {
          redirect: 'manual',
          headers: { ...headers, ...more },
        })
        .then(answer),
    /** prompt=none for `email`: the redirect's parameters. */
    async code(
      clientId: string,
      challenge: string,
      email = 'admin@fleet.test',
      extra: Record<string, string> = {},
    ): Promise<URLSearchParams> {
      const res = await self.authorize({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st-1',
        prompt: 'none',
        login_hint: email,
        ...extra,
      })
      if (res.status !== 302) throw new Error(`authorize answered ${res.status}: ${await res.text()}`)
      return new URL(res.headers.get('location')!).searchParams
    },
    exchange: (clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) =>
      form('/oauth/token', {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        ...extra,
      }),
    refresh: (clientId: string, token: string) =>
      form('/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: token }),
    /** Register, sign in with prompt=none, exchange: the token answer. */
    async tokens(email = 'admin@fleet.test') {
      const clientId = await self.client()
      const { verifier, challenge } = pkce()
      const code = (await self.code(clientId, challenge, email)).get('code')!
      const res = await self.exchange(clientId, code, verifier)
      if (res.status !== 200) throw new Error(`token answered ${res.status}: ${JSON.stringify(res.body)}`)
      return { clientId, ...res.body } as {
        clientId: string
        access_token: string
        refresh_token: string
        expires_in: number
        scope: string
      }
    },
    /** The world's OAuth state as a snapshot holds it: compared before and after a refused request. */
    state: async () => (await s.control.get('/snapshot')).body.oauth,
    advance: async (by: string) => {
      const res = await s.control.post('/clock', { advanceBy: by })
      if (res.status !== 200) throw new Error(`clock answered ${res.status}`)
    },
  }
  return self
}
