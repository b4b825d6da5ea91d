import { defineRoute } from '../route/route.js'
import type { RouteContext } from '../route/route.js'
import type { Reply } from '../http/reply.js'
import { authorizeForm as signInForm, authorizeQuery, registerBody, revokeForm, tokenForm } from './requests.js'

/**
 * Agent access (docs/agents.md): the OAuth 2.1 authorization server of each world. Handlers
 * load their code on first use, so a page that never signs an agent in does not carry it (the
 * browser entry's budget, test/browser/sandbox.test.ts).
 */
const server = () => import('./endpoints.js')
const lazy =
  (
    name:
      'serverMetadata' | 'resourceMetadata' | 'authorizeGet' | 'authorizePost' | 'token' | 'register' | 'revokeToken',
  ) =>
  async (ctx: RouteContext): Promise<Reply> =>
    (await server())[name](ctx)

const tag = 'agents'
const pub = { kind: 'public' } as const
/** Form fields the journal never keeps: a form body of these routes is not kept at all (sandbox/credentials.ts). */
const secret = ['password', 'code', 'code_verifier', 'refresh_token', 'token', 'client_secret'] as const
const oauthErrors = {
  400: 'RFC 6749 error body {error, error_description}, the description naming the field',
  401: 'invalid_client: an unknown client_id, or a secret sent by a public client',
}

export const authorizationServerMetadata = defineRoute({
  id: 'oauthAuthorizationServerMetadata',
  method: 'GET',
  path: '/.well-known/oauth-authorization-server',
  tag,
  auth: pub,
  // No step of a bundle (only the API's are): what it changes of OAuth (a code, prompt=none) is carried as the part's value.
  replayed: false,
  summary: 'OAuth 2.1 authorization server metadata (RFC 8414): endpoints, PKCE S256, scope service:api',
  handler: lazy('serverMetadata'),
})

export const protectedResourceMetadata = defineRoute({
  id: 'oauthProtectedResourceMetadata',
  method: 'GET',
  path: '/.well-known/oauth-protected-resource/mcp',
  tag,
  auth: pub,
  // No step of a bundle (only the API's are): what it changes of OAuth (a code, prompt=none) is carried as the part's value.
  replayed: false,
  summary: 'Protected resource metadata of the MCP server (RFC 9728): resource <sandbox>/mcp, its authorization server',
  handler: lazy('resourceMetadata'),
})

export const authorizePage = defineRoute({
  id: 'oauthAuthorize',
  method: 'GET',
  path: '/oauth/authorize',
  tag,
  auth: pub,
  // No step of a bundle (only the API's are): what it changes of OAuth (a code, prompt=none) is carried as the part's value.
  replayed: false,
  secretHeaders: ['location'],
  summary:
    'Authorization request (code, PKCE S256): the sign-in page of the demo accounts; prompt=none with login_hint redirects with a code at once',
  response: {
    status: 200,
    description: 'The sign-in page, or 302 to the redirect URI with code (or error), state and iss',
    mediaType: 'text/html',
  },
  htmlErrors: [400],
  errors: {
    302: 'Redirect to the client with code or error, state and iss (RFC 9207)',
    400: 'Unknown client_id or unregistered redirect_uri: not redirected',
  },
  reads: { query: authorizeQuery },
  handler: lazy('authorizeGet'),
})

export const authorizeForm = defineRoute({
  id: 'oauthAuthorizeForm',
  method: 'POST',
  path: '/oauth/authorize',
  tag,
  auth: pub,
  replayed: false,
  secret,
  secretHeaders: ['location'],
  summary:
    "The sign-in form (form-encoded e-mail, password and the request's parameters): 303 to the redirect URI with a code",
  response: { status: 303, description: 'Redirect to the client with code or error, state and iss' },
  htmlErrors: [400, 401, 403],
  errors: {
    400: 'Unknown client_id or unregistered redirect_uri: not redirected',
    401: 'Wrong e-mail or password (the page again)',
    403: 'Disabled user (the page again)',
  },
  reads: { form: signInForm },
  handler: lazy('authorizePost'),
})

export const tokenEndpoint = defineRoute({
  id: 'oauthToken',
  signsIn: { kind: 'user', token: '$response.body#/access_token' },
  method: 'POST',
  path: '/oauth/token',
  tag,
  auth: pub,
  replayed: false,
  secret,
  summary:
    'Token endpoint (form-encoded): authorization_code with code_verifier, or refresh_token (rotated; a reused one revokes its grant)',
  response: {
    description: 'access_token (the agent JWT, 1 hour), refresh_token (30 days), token_type, expires_in, scope',
  },
  errors: oauthErrors,
  reads: { form: tokenForm },
  handler: lazy('token'),
})

export const registerClient = defineRoute({
  id: 'oauthRegister',
  method: 'POST',
  path: '/oauth/register',
  tag,
  auth: pub,
  replayed: false,
  summary: 'Dynamic client registration (RFC 7591): public clients, https or loopback http redirect URIs',
  response: { status: 201, description: 'The registered client: client_id and its metadata' },
  errors: { 400: 'invalid_redirect_uri or invalid_client_metadata, naming the field' },
  reads: { json: registerBody },
  handler: lazy('register'),
})

export const revokeEndpoint = defineRoute({
  id: 'oauthRevoke',
  method: 'POST',
  path: '/oauth/revoke',
  tag,
  auth: pub,
  replayed: false,
  secret,
  summary:
    'Token revocation (RFC 7009, form-encoded): a refresh or access token revokes its whole grant; unknown tokens answer 200 too',
  errors: oauthErrors,
  reads: { form: revokeForm },
  handler: lazy('revokeToken'),
})

/** In the control API (Node runtimes): what the inspector shows of agent access. */
export const listAgents = defineRoute({
  id: 'sandboxAgents',
  method: 'GET',
  path: '/__sandbox/agents',
  tag: 'sandbox control',
  auth: { kind: 'control' },
  summary:
    'Agent sessions of this world: client, user, scopes, expiry of the access and refresh tokens, revoked or not; and the registered clients',
  handler: async (ctx) => (await import('./sessions.js')).agentSessions(ctx),
})

export const agentRoutes = [
  authorizationServerMetadata,
  protectedResourceMetadata,
  authorizePage,
  authorizeForm,
  tokenEndpoint,
  registerClient,
  revokeEndpoint,
  listAgents,
]
