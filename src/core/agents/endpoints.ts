import type { RouteContext } from '../route/route.js'
import { RawBody, type Reply } from '../http/reply.js'
import { readJson } from '../http/body.js'
import { randomToken } from '../clock/random.js'
import { AGENT_SCOPE, looksLikeJwt, verifyToken } from '../auth/tokens.js'
import type { OAuthClient } from './state.js'
import { CODE_TTL_MS } from './bounds.js'
import {
  NO_STORE,
  OAuthError,
  addClient,
  capCodes,
  checkResource,
  checkScope,
  checkedBody,
  checkedParams,
  clientOf,
  errorAnswer,
  formOf,
  grantOfRefresh,
  hashOf,
  invalidGrant,
  invalidRequest,
  issue,
  issuerOf,
  oauthReply,
  openGrant,
  paramsOf,
  prune,
  revoke,
  tokenAnswer,
  userByEmail,
} from './oauth.js'
import { base64url, sha256Bytes } from '../http/bytes.js'
import { PAGE_HEADERS, errorPage, signInPage } from './page.js'
import { authorizeQuery, registerBody, revokeForm, tokenForm } from './requests.js'

/** RFC 8414 metadata. */
export function serverMetadata(ctx: RouteContext): Reply {
  const issuer = issuerOf(ctx)
  return {
    status: 200,
    body: {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      scopes_supported: [AGENT_SCOPE],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
      service_documentation: 'https://github.com/fleet-sandbox/fleet-sandbox/blob/main/docs/agents.md',
    },
  }
}

/** RFC 9728 metadata of the MCP server. */
export function resourceMetadata(ctx: RouteContext): Reply {
  const issuer = issuerOf(ctx)
  return {
    status: 200,
    body: {
      resource: `${issuer}/mcp`,
      authorization_servers: [issuer],
      scopes_supported: [AGENT_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'fleet-sandbox MCP server',
    },
  }
}

/** An authorization request whose client and redirect URI are known good: errors may now go back to it. */
interface Target {
  client: OAuthClient
  redirectUri: string
  /** The `redirect_uri` as sent (null: absent, the client's only one used). */
  sent: string | null
  state: string | undefined
  issuer: string
}

/** Not to be sent back to the client (RFC 6749 §4.1.2.1): a page for a person, JSON for a program. */
class Unsendable extends Error {}

function refusedPage(ctx: RouteContext, error: OAuthError | Unsendable): Reply {
  const code = error instanceof OAuthError ? error.code : 'invalid_request'
  if (/text\/html/.test(ctx.request.headers.get('accept') ?? ''))
    return {
      status: 400,
      body: new RawBody(errorPage(code, error.message), 'text/html; charset=utf-8'),
      headers: PAGE_HEADERS,
    }
  return { status: 400, body: { error: code, error_description: error.message }, headers: NO_STORE }
}

function targetOf(ctx: RouteContext, params: Map<string, string>): Target {
  const state = ctx.sandbox.oauth
  const id = params.get('client_id')
  if (id === undefined) throw new Unsendable('client_id: required')
  const client = state.clients.find((c) => c.client_id === id)
  if (!client)
    throw new Unsendable(
      `client_id: no client ${id.slice(0, 100)} is registered in this sandbox (POST /oauth/register; each x-sandbox-id has its own)`,
    )
  const sent = params.get('redirect_uri') ?? null
  if (sent === null && client.redirect_uris.length !== 1)
    throw new Unsendable('redirect_uri: required, since the client registered several')
  if (sent !== null && !client.redirect_uris.includes(sent))
    throw new Unsendable(
      `redirect_uri: ${sent.slice(0, 200)} is not one the client registered (they must match exactly)`,
    )
  return {
    client,
    redirectUri: sent ?? client.redirect_uris[0],
    sent,
    state: params.get('state'),
    issuer: issuerOf(ctx),
  }
}

interface Checked {
  challenge: string
  scope: string
  resource: string | null
}

/** RFC 6749 §4.1.1 with OAuth 2.1's PKCE S256 (the shape: requests.ts), and RFC 8707's `resource`. */
function checkRequest(params: Map<string, string>, target: Target): Checked {
  const shape = checkedParams(authorizeQuery, params, {
    response_type: 'unsupported_response_type',
    scope: 'invalid_scope',
  })
  return {
    challenge: shape.code_challenge,
    scope: checkScope(shape.scope, target.client.scope),
    resource: checkResource(target.issuer, shape.resource),
  }
}

function redirect(target: Target, values: Record<string, string | undefined>, status = 302): Reply {
  const url = new URL(target.redirectUri)
  for (const [k, v] of Object.entries({ ...values, state: target.state, iss: target.issuer }))
    if (v !== undefined) url.searchParams.append(k, v)
  return { status, body: null, headers: { location: url.href, 'cache-control': 'no-store' } }
}

async function grantCode(
  ctx: RouteContext,
  target: Target,
  checked: Checked,
  userId: string,
  status?: number,
): Promise<Reply> {
  const code = randomToken('ac_', 32)
  const hash = await hashOf(code)
  const state = ctx.sandbox.oauth
  const now = ctx.now()
  prune(state, now)
  state.codes.push({
    hash,
    clientId: target.client.client_id,
    userId,
    redirectUri: target.sent,
    challenge: checked.challenge,
    scope: checked.scope,
    resource: checked.resource,
    expiresAt: now + CODE_TTL_MS,
    usedAt: null,
    grant: null,
  })
  capCodes(state)
  state.version++
  return redirect(target, { code }, status)
}

const HIDDEN = [
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'resource',
]

function page(
  target: Target,
  checked: Checked,
  params: Map<string, string>,
  email: string,
  status = 200,
  error?: string,
): Reply {
  const hidden = HIDDEN.filter((k) => params.has(k)).map((k) => [k, params.get(k)!] as [string, string])
  const html = signInPage({
    clientName: target.client.client_name ?? target.client.client_id,
    redirectUri: target.redirectUri,
    scope: checked.scope,
    hidden,
    email,
    error,
  })
  return { status, body: new RawBody(html, 'text/html; charset=utf-8'), headers: PAGE_HEADERS }
}

/** Parses and checks an authorization request; the answer for a refusal, or what to go on with. */
function authorizationRequest(
  ctx: RouteContext,
  params: () => Map<string, string>,
): { reply: Reply } | { params: Map<string, string>; target: Target; checked: Checked } {
  let target: Target
  let all: Map<string, string>
  try {
    all = params()
    target = targetOf(ctx, all)
  } catch (error) {
    if (error instanceof OAuthError || error instanceof Unsendable) return { reply: refusedPage(ctx, error) }
    throw error
  }
  try {
    return { params: all, target, checked: checkRequest(all, target) }
  } catch (error) {
    if (error instanceof OAuthError)
      return { reply: redirect(target, { error: error.code, error_description: error.message }) }
    throw error
  }
}

/** `GET /oauth/authorize`: the sign-in page, or with `prompt=none` and `login_hint` a code at once. */
export async function authorizeGet(ctx: RouteContext): Promise<Reply> {
  const request = authorizationRequest(ctx, () => paramsOf(new URLSearchParams(ctx.search)))
  if ('reply' in request) return request.reply
  const { params, target, checked } = request
  const hint = params.get('login_hint')
  if (params.get('prompt') !== 'none') return page(target, checked, params, hint ?? '')
  if (hint === undefined)
    return redirect(target, {
      error: 'login_required',
      error_description: 'login_hint: prompt=none signs in the account named by login_hint (an e-mail); none was given',
    })
  const user = userByEmail(ctx.sandbox, hint)
  if (!user)
    return redirect(target, {
      error: 'login_required',
      error_description: `login_hint: no account with e-mail ${hint.slice(0, 200)}`,
    })
  if (user.disabled)
    return redirect(target, { error: 'access_denied', error_description: 'user: the account is disabled' })
  return grantCode(ctx, target, checked, user.id)
}

/** `POST /oauth/authorize`: the sign-in form. */
export async function authorizePost(ctx: RouteContext): Promise<Reply> {
  let form: Map<string, string>
  try {
    form = await formOf(ctx.request)
  } catch (error) {
    if (error instanceof OAuthError) return refusedPage(ctx, error)
    return errorAnswer(error)
  }
  const request = authorizationRequest(ctx, () => form)
  if ('reply' in request) return request.reply.status === 302 ? { ...request.reply, status: 303 } : request.reply
  const { params, target, checked } = request
  if (form.get('decision') === 'deny')
    return redirect(target, { error: 'access_denied', error_description: 'the user denied the request' }, 303)
  const email = form.get('email') ?? ''
  const user = userByEmail(ctx.sandbox, email)
  if (!user || user.password !== form.get('password'))
    return page(target, checked, params, email, 401, 'Wrong e-mail or password.')
  if (user.disabled) return page(target, checked, params, email, 403, 'This account is disabled: it cannot sign in.')
  return grantCode(ctx, target, checked, user.id, 303)
}

/** `POST /oauth/token` (RFC 6749 §4.1.3 and §6, OAuth 2.1 §4.3.1 rotation). */
export function token(ctx: RouteContext): Promise<Reply> {
  return oauthReply(async () => {
    const form = await formOf(ctx.request)
    if (ctx.request.headers.get('authorization') !== null || form.has('client_secret')) {
      throw new OAuthError(
        401,
        'invalid_client',
        'authorization: clients here are public (token_endpoint_auth_method none): send client_id in the body and no secret',
      )
    }
    const shape = checkedParams(tokenForm, form, { grant_type: 'unsupported_grant_type', scope: 'invalid_scope' })
    const type = shape.grant_type
    const state = ctx.sandbox.oauth
    const client = clientOf(state, shape.client_id)
    if (!client.grant_types.includes(type))
      throw new OAuthError(
        400,
        'unauthorized_client',
        `grant_type: the client did not register ${type} (its grant_types: ${client.grant_types.join(', ')})`,
      )
    const issuer = issuerOf(ctx)
    const resource = checkResource(issuer, form.get('resource'))
    const now = ctx.now()
    const userOf = (id: string) => {
      const user = ctx.sandbox.world.tables.users.get(id)
      if (!user) throw invalidGrant('user: the account no longer exists')
      if (user.disabled) throw invalidGrant('user: the account is disabled')
      return user
    }
    if (shape.grant_type === 'authorization_code') {
      const { code, code_verifier: verifier } = shape
      const hash = await hashOf(code)
      const row = state.codes.find((c) => c.hash === hash)
      if (!row)
        throw invalidGrant(
          'code: unknown: a code works in the sandbox (x-sandbox-id) that issued it, until 10 minutes after it expired',
        )
      if (row.clientId !== client.client_id) throw invalidGrant('code: was issued to another client')
      if (row.usedAt !== null) {
        revoke(
          state,
          state.grants.find((g) => g.id === row.grant),
          now,
          'its authorization code was used twice',
        )
        throw invalidGrant('code: already used; the tokens it issued are now revoked (OAuth 2.1 §4.1.3)')
      }
      if (now >= row.expiresAt) throw invalidGrant('code: expired: codes live 60 s of sandbox clock')
      const expected = row.redirectUri ?? client.redirect_uris[0]
      const sent = form.get('redirect_uri')
      if ((row.redirectUri !== null || sent !== undefined) && sent !== expected)
        throw invalidGrant(`redirect_uri: must be the one of the authorization request (${expected})`)
      if (base64url(await sha256Bytes(verifier)) !== row.challenge)
        throw invalidGrant('code_verifier: does not match the code_challenge (S256)')
      if (resource !== null && row.resource !== null && resource !== row.resource)
        throw new OAuthError(
          400,
          'invalid_target',
          `resource: must be the one of the authorization request (${row.resource})`,
        )
      const user = userOf(row.userId)
      prune(state, now)
      row.usedAt = now
      const { grant, issued } = await openGrant(
        ctx.sandbox,
        user,
        client.client_id,
        row.scope,
        resource ?? row.resource,
        client.grant_types.includes('refresh_token'),
        issuer,
      )
      row.grant = grant.id
      return tokenAnswer(issued)
    }
    const refresh = shape.refresh_token
    const grant = grantOfRefresh(state, refresh)
    if (!grant)
      throw invalidGrant('refresh_token: unknown: a refresh token works in the sandbox (x-sandbox-id) that issued it')
    if (grant.clientId !== client.client_id) throw invalidGrant('refresh_token: was issued to another client')
    if (grant.revokedAt !== null) throw invalidGrant(`refresh_token: revoked: ${grant.revokedWhy}`)
    if (grant.refreshExpiresAt === null || now >= grant.refreshExpiresAt)
      throw invalidGrant('refresh_token: expired: refresh tokens live 30 days of sandbox clock')
    if (grant.refreshHash !== (await hashOf(refresh))) {
      revoke(state, grant, now, 'a rotated refresh token was used again')
      throw invalidGrant(
        'refresh_token: already used (each works once); the whole grant is now revoked (OAuth 2.1 §4.3.1)',
      )
    }
    const scope = checkScope(form.get('scope'), grant.scope)
    if (resource !== null && grant.resource !== null && resource !== grant.resource)
      throw new OAuthError(400, 'invalid_target', `resource: must be the grant's (${grant.resource})`)
    const user = userOf(grant.userId)
    prune(state, now)
    grant.rotations++
    return tokenAnswer(await issue(ctx.sandbox, grant, user, true, issuer, scope))
  })
}

/** `POST /oauth/revoke` (RFC 7009): a refresh or access token revokes its grant; an unknown one is 200 too. */
export function revokeToken(ctx: RouteContext): Promise<Reply> {
  return oauthReply(async () => {
    const form = await formOf(ctx.request)
    const state = ctx.sandbox.oauth
    const shape = checkedParams(revokeForm, form, { token_type_hint: 'unsupported_token_type' })
    const client = clientOf(state, shape.client_id)
    const value = shape.token
    let grant = grantOfRefresh(state, value)
    if (grant && grant.refreshHash !== (await hashOf(value))) grant = undefined
    if (!grant && looksLikeJwt(value)) {
      const verified = await verifyToken(ctx.sandbox.signingKey, value, Math.floor(ctx.now() / 1000))
      const id = verified.ok && verified.claims.kind === 'agent' ? verified.claims.grant : undefined
      grant = state.grants.find((g) => g.id === id)
    }
    if (grant && grant.clientId !== client.client_id)
      throw invalidRequest('token: was issued to another client; only that client may revoke it')
    revoke(state, grant, ctx.now(), 'revoked by the client (POST /oauth/revoke)')
    return { status: 200, body: null, headers: NO_STORE }
  })
}

const metadataError = (field: string, rule: string) =>
  new OAuthError(400, 'invalid_client_metadata', `${field}: ${rule}`)

/** `POST /oauth/register` (RFC 7591): public clients only; every field checked, unknown ones ignored (§2). */
export function register(ctx: RouteContext): Promise<Reply> {
  return oauthReply(async () => {
    let body: unknown
    try {
      body = await readJson(ctx.request)
    } catch (error) {
      throw metadataError('body', (error as Error).message.replace(/^body: /, ''))
    }
    const shape = checkedBody(registerBody, body, { redirect_uris: 'invalid_redirect_uri' }, 'invalid_client_metadata')
    const uris = shape.redirect_uris
    const grantTypes = shape.grant_types ? [...new Set(shape.grant_types)] : ['authorization_code', 'refresh_token']
    const name = shape.client_name ?? undefined
    const scope = shape.scope === undefined ? AGENT_SCOPE : checkScope(shape.scope, AGENT_SCOPE)
    const client: OAuthClient = {
      client_id: randomToken('oac_', 12),
      client_name: name ?? null,
      redirect_uris: [...new Set(uris as string[])],
      grant_types: grantTypes,
      scope,
      client_id_issued_at: Math.floor(ctx.now() / 1000),
    }
    prune(ctx.sandbox.oauth, ctx.now())
    addClient(ctx.sandbox.oauth, client)
    const { client_name, ...rest } = client
    return {
      status: 201,
      body: {
        ...rest,
        ...(client_name !== null && { client_name }),
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      headers: NO_STORE,
    }
  })
}
