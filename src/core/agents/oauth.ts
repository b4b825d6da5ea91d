import type * as z from 'zod'
import type { RouteContext } from '../route/route.js'
import { HttpError, RawJson, type Reply } from '../http/reply.js'
import { readBody } from '../http/body.js'
import type { OAuthClient, OAuthState } from './state.js'
import { CLIENT_LIMIT, CODE_LIMIT, FORM_LIMIT } from './bounds.js'
import { type Issued, SHORTCUT_CLIENT } from './grants.js'

export {
  type Issued,
  SHORTCUT_CLIENT,
  grantOfRefresh,
  hashOf,
  issue,
  issuerOf,
  openGrant,
  prune,
  revoke,
  userByEmail,
} from './grants.js'

/**
 * The OAuth 2.1 authorization server's shared parts (docs/agents.md): errors in RFC 6749's
 * shape, form bodies, hashes, the world's bookkeeping (caps, expiry) and token issue. Every
 * check runs before anything changes, so a refused request leaves the world as it was.
 */

/** An RFC 6749 §5.2 error; `oauthReply` answers it as `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}
export const invalidRequest = (message: string) => new OAuthError(400, 'invalid_request', message)
export const invalidGrant = (message: string) => new OAuthError(400, 'invalid_grant', message)
export const invalidClient = (message: string) => new OAuthError(401, 'invalid_client', message)

/** Token answers must not be cached (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }

export function errorAnswer(error: unknown): Reply {
  if (error instanceof OAuthError)
    return { status: error.status, body: { error: error.code, error_description: error.message }, headers: NO_STORE }
  // A body too large (413) or cut off: the standard status, in OAuth's shape.
  if (error instanceof HttpError)
    return {
      status: error.status,
      body: { error: 'invalid_request', error_description: error.message },
      headers: NO_STORE,
    }
  throw error
}

/** Runs an endpoint: its OAuth errors become RFC 6749 error bodies. */
export async function oauthReply(run: () => Promise<Reply>): Promise<Reply> {
  try {
    return await run()
  } catch (error) {
    return errorAnswer(error)
  }
}

/** The resources a token may be for (RFC 8707): the MCP server, or the sandbox itself. */
export function checkResource(issuer: string, resource: string | undefined): string | null {
  if (resource === undefined) return null
  const own = [`${issuer}/mcp`, issuer, `${issuer}/`]
  if (!own.includes(resource))
    throw new OAuthError(
      400,
      'invalid_target',
      `resource: must be ${issuer}/mcp (this sandbox's MCP server) or ${issuer}; got ${resource.slice(0, 200)}`,
    )
  return resource
}

/** Scopes this server knows; a request names a subset of the client's (default: all of them). */
export function checkScope(requested: string | undefined, allowed: string): string {
  if (requested === undefined) return allowed
  const list = requested.split(' ').filter(Boolean)
  const known = allowed.split(' ')
  const unknown = list.find((s) => !known.includes(s))
  if (unknown !== undefined || list.length === 0)
    throw new OAuthError(
      400,
      'invalid_scope',
      `scope: ${unknown === undefined ? 'must name a scope' : `"${unknown.slice(0, 100)}" is not one this client may ask for`}; allowed: ${allowed}`,
    )
  return [...new Set(list)].join(' ')
}

/**
 * A request's parameters checked by the schema the served document states (requests.ts), its
 * first refusal as an OAuth error: `codes` names the error code of a field when it was sent
 * (unsupported_grant_type, invalid_scope...), invalid_request otherwise (a field missing).
 */
export function checkedParams<T>(
  schema: z.ZodType<T>,
  params: Map<string, string>,
  codes: Readonly<Record<string, string>> = {},
): T {
  const result = schema.safeParse(Object.fromEntries(params))
  if (result.success) return result.data
  throw shapeError(result.error.issues, (field) => (params.has(field) ? codes[field] : undefined) ?? 'invalid_request')
}

/** A JSON body checked by its schema (registration's metadata): `codes` by field, `fallback` for the rest. */
export function checkedBody<T>(
  schema: z.ZodType<T>,
  body: unknown,
  codes: Readonly<Record<string, string>>,
  fallback: string,
): T {
  const result = schema.safeParse(body)
  if (result.success) return result.data
  throw shapeError(result.error.issues, (field) => codes[field] ?? fallback)
}

/** The first issue, named by its path (`redirect_uris.1`), with the code of its top field. */
function shapeError(issues: readonly z.core.$ZodIssue[], codeOf: (field: string) => string): OAuthError {
  const issue = issues[0]
  const path = issue.path.map(String)
  return new OAuthError(400, codeOf(path[0] ?? ''), `${path.length ? path.join('.') : 'body'}: ${issue.message}`)
}

/**
 * Parameters of a form body or a query (RFC 6749 §3.1): each at most once, an empty one as if
 * absent. `form` bodies must be `application/x-www-form-urlencoded`.
 */
export function paramsOf(params: URLSearchParams): Map<string, string> {
  const out = new Map<string, string>()
  const seen = new Set<string>()
  for (const [name, value] of params) {
    if (seen.has(name)) throw invalidRequest(`${name.slice(0, 100)}: must be sent at most once (RFC 6749 §3.1)`)
    seen.add(name)
    if (value !== '') out.set(name, value)
  }
  return out
}

/** The request's form body, read once (a scenario may read it before the endpoint does). */
export async function formOf(request: Request): Promise<Map<string, string>> {
  const type = request.headers.get('content-type')?.split(';')[0].trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded')
    throw invalidRequest(
      `content-type: must be application/x-www-form-urlencoded (RFC 6749 §4.1.3), got ${type ?? 'none'}`,
    )
  const bytes = await readBody(request, FORM_LIMIT)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw invalidRequest('body: must be UTF-8')
  }
  return paramsOf(new URLSearchParams(text))
}

export function clientOf(state: OAuthState, id: string | undefined): OAuthClient {
  // Missing is the request's shape (invalid_request, RFC 6749 §5.2); unknown, the client's (invalid_client).
  if (id === undefined)
    throw invalidRequest('client_id: required (clients here are public: send client_id in the body, no secret)')
  const client = id === SHORTCUT_CLIENT.client_id ? SHORTCUT_CLIENT : state.clients.find((c) => c.client_id === id)
  if (!client)
    throw invalidClient(
      `client_id: no client ${id.slice(0, 100)} is registered in this sandbox (POST /oauth/register; each x-sandbox-id has its own)`,
    )
  return client
}

/** Adds a client; past the cap the oldest goes, with its codes and grants. */
export function addClient(state: OAuthState, client: OAuthClient): void {
  state.clients.push(client)
  while (state.clients.length > CLIENT_LIMIT) {
    const gone = state.clients.shift()!.client_id
    state.codes = state.codes.filter((c) => c.clientId !== gone)
    state.grants = state.grants.filter((g) => g.clientId !== gone)
  }
  state.version++
}

export function capCodes(state: OAuthState): void {
  if (state.codes.length > CODE_LIMIT) state.codes.splice(0, state.codes.length - CODE_LIMIT)
}

/** A token answer: the journal keeps it with the tokens `[not kept]` (RawJson's kept text). */
export function tokenAnswer(issued: Issued): Reply {
  const kept = JSON.stringify({
    ...issued,
    access_token: '[not kept]',
    ...(issued.refresh_token && { refresh_token: '[not kept]' }),
  })
  const bytes = new TextEncoder().encode(kept)
  return {
    status: 200,
    body: new RawJson(JSON.stringify(issued), { size: bytes.byteLength, bytes: () => bytes }),
    headers: NO_STORE,
  }
}
