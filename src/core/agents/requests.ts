import * as z from 'zod'
import { AGENT_SCOPE } from '../auth/tokens.js'
import { REDIRECT_LIMIT, TEXT_LIMIT } from './bounds.js'
import { LOOPBACK_ORIGIN } from '../control/origin.js'

/**
 * What the OAuth endpoints take: the schemas they check a request's shape with (oauth.ts
 * `checkedParams`, each refusal with its RFC 6749 error code, some sent back to the client as a
 * redirect) and the served document states (docs/routes.md "Where each rule lives"): one source,
 * rules and messages. What no schema can know (a registered client, a code, the issuer) the
 * endpoints check after. An empty parameter counts as absent (RFC 6749 §3.1), so each present one
 * is at least 1 character.
 */

/** RFC 7636 §4.2: the S256 challenge is the 43-character base64url SHA-256 of the verifier. */
export const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const PKCE_TEXT = /^[A-Za-z0-9._~-]{43,128}$/
/** A scope the clients here may ask for: `service:api`, spaces around allowed (§3.3). */
export const SCOPE_TEXT = new RegExp(`^ *${AGENT_SCOPE}(?: +${AGENT_SCOPE})* *$`)

/** An optional parameter: empty is the same as absent (RFC 6749 §3.1). */
const text = (description: string) => z.string().meta({ description })
/** A required one: empty is absent, so refused. */
const needed = (description: string, missing = 'required') =>
  z.string({ error: missing }).min(1, missing).meta({ description })
const CLIENT_MISSING = 'required (clients here are public: send client_id in the body, no secret)'
/** Why a scope is refused: the first name no client here may ask for. */
const scopeRefusal = (value: unknown) => {
  const unknown = String(value)
    .split(' ')
    .filter(Boolean)
    .find((s) => s !== AGENT_SCOPE)
  return `${unknown === undefined ? 'must name a scope' : `"${unknown.slice(0, 100)}" is not one this client may ask for`}; allowed: ${AGENT_SCOPE}`
}
const scope = z
  .string()
  .regex(SCOPE_TEXT, { error: (issue) => scopeRefusal(issue.input) })
  .optional()
  .meta({ description: `Space-separated scopes; the only one is ${AGENT_SCOPE} (the default)` })
/** A refused value as a message quotes it. */
const quoted = (value: unknown) => String(value).slice(0, 50)
/** RFC 8707: the served document states its values once it knows the served origin (openapi.ts). */
export const resource = z.string().optional().meta({
  description: "The token's audience: <sandbox>/mcp (its MCP server) or <sandbox> itself",
  'x-sandbox-issuer-resource': true,
})

/** `GET /oauth/authorize`'s query, and the hidden fields of the sign-in form. */
export const authorizeQuery = z.object({
  response_type: z.literal('code', {
    error: (issue) => (issue.input === undefined ? 'must be code' : `must be code, got ${quoted(issue.input)}`),
  }),
  client_id: needed('A client registered in this sandbox (POST /oauth/register)'),
  redirect_uri: text('One the client registered, exactly; required when it registered several').optional(),
  state: text('Sent back with the code').optional(),
  code_challenge: z
    .string({ error: 'required: PKCE with S256 is mandatory (OAuth 2.1)' })
    .regex(PKCE_CHALLENGE, 'must be the 43-character base64url SHA-256 of the code_verifier (RFC 7636 §4.2)')
    .meta({ description: 'base64url SHA-256 of the code_verifier' }),
  code_challenge_method: z.literal('S256', {
    error: (issue) =>
      issue.input === undefined
        ? 'must be S256 (absent means plain, which is refused)'
        : `must be S256; ${quoted(issue.input)} is refused`,
  }),
  scope,
  resource,
  login_hint: text('With prompt=none: the e-mail of the demo account to sign in at once').optional(),
  prompt: text('none: no page, a code at once for login_hint').optional(),
})

/** The sign-in form posted to `/oauth/authorize`. */
export const authorizeForm = authorizeQuery.extend({
  email: text("A demo account's e-mail").optional(),
  password: text("The account's password (sandbox)").optional(),
  decision: text('deny refuses the request; anything else signs in').optional(),
})

/** `POST /oauth/token`: a code exchange or a refresh. */
export const tokenForm = z.discriminatedUnion(
  'grant_type',
  [
    z.object({
      grant_type: z.literal('authorization_code'),
      client_id: needed('The public client the code was issued to', CLIENT_MISSING),
      code: needed('The authorization code (60 s)'),
      code_verifier: z
        .string({ error: 'required: PKCE is mandatory (OAuth 2.1)' })
        .regex(PKCE_TEXT, 'must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)'),
      redirect_uri: text("The authorization request's, when it named one").optional(),
      resource,
    }),
    z.object({
      grant_type: z.literal('refresh_token'),
      client_id: needed('The public client the token was issued to', CLIENT_MISSING),
      // The scope's shape before the token: a malformed request is named as such.
      scope,
      refresh_token: needed('Each works once: rotated'),
      resource,
    }),
  ],
  {
    error: (issue) => {
      const type = (issue.input as { grant_type?: unknown } | undefined)?.grant_type
      return type === undefined
        ? 'required (authorization_code or refresh_token)'
        : `must be authorization_code or refresh_token, got ${quoted(type)}`
    },
  },
)

/** `POST /oauth/revoke` (RFC 7009). */
export const revokeForm = z.object({
  client_id: needed('The public client the token was issued to', CLIENT_MISSING),
  token: needed('A refresh or access token'),
  token_type_hint: z
    .enum(['access_token', 'refresh_token'], {
      error: (issue) => `must be access_token or refresh_token, got ${quoted(issue.input)}`,
    })
    .optional(),
})

/**
 * A redirect URI the endpoint takes as written (endpoints.ts `redirectError`): https, or http on
 * a loopback host, that the URL parser leaves as it is. The pattern is narrower than the check
 * (no default port, no dot segments, no IP host but loopback's, a query only after a path: the
 * parser puts a "/" before it), so every URI it allows is taken.
 */
export const REDIRECT_URI =
  /^(?:https:\/\/(?!xn--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.(?!xn--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.[a-z][a-z0-9-]*[a-z0-9](?::(?!443(?:\/|$))[1-9][0-9]{1,3})?|http:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::[1-9][0-9]{2,3})?)(?:(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+\/?(?:\?[A-Za-z0-9._~=&-]*)?|\/(?:\?[A-Za-z0-9._~=&-]*)?)?$/
const NAME_RULE = 'must be a string of at most 200 characters'
const name = z.string({ error: NAME_RULE }).max(200, NAME_RULE).nullable().optional()
const URL_TEXT = `must be a string of at most ${TEXT_LIMIT} characters`
const webUrl = z
  .string({ error: URL_TEXT })
  .max(TEXT_LIMIT, URL_TEXT)
  .regex(/^https?:\/\//, 'must be an http or https URL')
  .nullable()
  .optional()
const URIS_RULE = `must be a list of 1 to ${REDIRECT_LIMIT} redirect URIs`
const GRANTS_RULE = 'must be a non-empty list of authorization_code, refresh_token'
const CODES_RULE = 'must be a non-empty list of code'
const CONTACTS_RULE = 'must be a list of at most 10 strings'
/** A redirect URI, checked by `redirectError`; the document states the narrower pattern (REDIRECT_URI). */
const redirectUri = z
  .string({ error: 'must be a string' })
  .superRefine((value, ctx) => {
    const problem = redirectError(value)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })
  .meta({ maxLength: TEXT_LIMIT, pattern: REDIRECT_URI.source })

/** `POST /oauth/register` (RFC 7591): public clients; unknown fields are ignored (§2). */
export const registerBody = z.looseObject(
  {
    redirect_uris: z.array(redirectUri, { error: URIS_RULE }).min(1, URIS_RULE).max(REDIRECT_LIMIT, URIS_RULE),
    token_endpoint_auth_method: z
      .literal('none', { error: 'must be none: this server registers public clients only (PKCE, no secret)' })
      .optional(),
    grant_types: z
      .array(z.enum(['authorization_code', 'refresh_token'], { error: GRANTS_RULE }), { error: GRANTS_RULE })
      .min(1, GRANTS_RULE)
      .refine(
        (list) => list.includes('authorization_code'),
        'must include authorization_code (the only way to a first token)',
      )
      .meta({ contains: { const: 'authorization_code' } })
      .nullable()
      .optional(),
    response_types: z
      .array(z.literal('code', { error: CODES_RULE }), { error: CODES_RULE })
      .min(1, CODES_RULE)
      .nullable()
      .optional(),
    client_name: name,
    software_id: name,
    software_version: name,
    client_uri: webUrl,
    logo_uri: webUrl,
    tos_uri: webUrl,
    policy_uri: webUrl,
    contacts: z
      .array(z.string({ error: CONTACTS_RULE }).max(200, CONTACTS_RULE), { error: CONTACTS_RULE })
      .max(10, CONTACTS_RULE)
      .optional(),
    scope: z
      .string({ error: 'must be a string' })
      .regex(SCOPE_TEXT, { error: (issue) => `must be ${AGENT_SCOPE}; scope: ${scopeRefusal(issue.input)}` })
      .optional(),
  },
  { error: 'must be a JSON object of client metadata (RFC 7591 §2)' },
)

const LOOPBACK_HTTP = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/

/** A registered redirect URI: absolute, no fragment, https or http on a loopback host (RFC 8252 §7.3). */
export function redirectError(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string'
  if (value.length > TEXT_LIMIT) return `must be at most ${TEXT_LIMIT} characters`
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.hash !== '' || value.includes('#')) return 'must not carry a fragment (RFC 6749 §3.1.2)'
  // The redirect goes to the URL as parsed: one the parser rewrites (a tab, a line break, a
  // control character dropped, "..", a backslash) would send the code elsewhere than registered.
  if (!/^[\x21-\x7e]*$/.test(value))
    return 'must be visible ASCII only (RFC 3986: no spaces, tabs, line breaks or control characters; percent-encode the rest)'
  if (url.href !== value && url.href !== `${value}/`)
    return `must be written as it reads (${JSON.stringify(url.href.slice(0, 200))}): the redirect goes there`
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:' && LOOPBACK_HTTP.test(url.origin) && LOOPBACK_ORIGIN.test(url.origin)) return undefined
  return 'must be https, or http on a loopback host (127.0.0.1, [::1] or localhost)'
}
