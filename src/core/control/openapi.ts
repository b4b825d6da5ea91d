import * as z from 'zod'
import type { ErrorShape } from '../http/reply.js'
import { BOUND_SCHEMA } from '../scenarios/window.js'
import type { RouteDef } from '../route/route.js'
import { SANDBOX_ID_COOKIE, SANDBOX_ID_HEADER, SANDBOX_ID_PATTERN } from '../sandbox/sandbox-id.js'
import { operationLinks } from './openapi-links.js'
import { overrideRequest } from '../overrides/override.js'
import { FILE_LIMIT, FILES_PER_UPLOAD } from '../http/body.js'
import { AGENT_SCOPE } from '../auth/tokens.js'

export { assumed } from '../http/assumed.js'

/** The routes a SandboxApp with these options serves (the same rule as its constructor). */
type Json = Record<string, unknown>

const errorSchemas: Record<string, Json> = {
  StandardError: {
    type: 'object',
    required: ['statusCode', 'message', 'error'],
    properties: {
      statusCode: { type: 'integer' },
      message: { type: 'string', description: 'Names the field and the rule' },
      error: { type: 'string' },
    },
  },
  ErrorText: {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string', description: 'Names the field and the rule' } },
  },
  MessageText: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
  ReshapedError: {
    description:
      'With the error-shapes scenario, any error body of an /api operation takes one of the three shapes in turn',
    anyOf: [
      { $ref: '#/components/schemas/StandardError' },
      { $ref: '#/components/schemas/ErrorText' },
      { $ref: '#/components/schemas/MessageText' },
    ],
  },
}

/** A scenario name as the pattern of a header: its characters taken literally. */
const literal = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * `x-sandbox-scenario` as the registry reads it (scenarios/registry.ts `parseList`): known names
 * separated by commas. The pattern names them bare; `name;key=value` options are said in words,
 * since what an option takes is each scenario's own schema (GET /__sandbox/scenarios).
 */
export function scenarioHeaderPattern(names: readonly string[]): string {
  if (!names.length) return '^$'
  const one = `(?:${names.map(literal).join('|')})`
  return `^${one}(?: *, *${one})*$`
}

function sharedParameters(scenarios: readonly string[]): Record<string, Json> {
  return {
    SandboxId: {
      name: SANDBOX_ID_HEADER,
      in: 'header',
      required: false,
      description: `The isolated sandbox to use (1 to 128 letters, digits, ".", ":", "_" or "-"); another value, an empty one included, is a 400. Without it, the cookie ${SANDBOX_ID_COOKIE}, else the default sandbox`,
      schema: { type: 'string', pattern: SANDBOX_ID_PATTERN.source, minLength: 1, maxLength: 128 },
    },
    SandboxScenario: {
      name: 'x-sandbox-scenario',
      in: 'header',
      required: false,
      description:
        'Scenarios for this request only: NAME[,NAME], each a known scenario (an unknown one is a 400). A scenario also takes options, NAME;key=value[;key=value], each checked by its own schema (GET /__sandbox/scenarios lists them)',
      schema: { type: 'string', pattern: scenarioHeaderPattern(scenarios) },
    },
  }
}

const reasons: Record<number, string> = {
  400: 'Invalid payload, query or path parameter (the message names the field and the rule)',
  401: 'Token missing, invalid or expired, or a legacy JWT',
  403: 'No permission, ownership or role',
  404: 'Resource missing',
  409: 'Business conflict',
  413: 'Body too large',
  415: 'Unsupported content type',
  422: 'Validation rule or invalid transition',
  429: 'Too many requests (scenarios rate-limited, rate-limit-exhausted), with Retry-After',
  500: 'Internal error, or an effect applied then failed (scenario commit-then-fail)',
  502: 'Bad gateway (scenario degraded, reads)',
  503: 'Service unavailable (scenario degraded, reads)',
  504: 'Time-out (scenario degraded on reads, commit-then-fail with timeoutMs on effects)',
}

const controlReasons: Record<number, string> = {
  401: 'Under --control-token: the x-sandbox-control-token header is missing or wrong',
  403: 'A web page elsewhere: an Origin (or, without one, Sec-Fetch-Site: cross-site) that is not loopback nor named with --cors-origin',
  415: 'A wrong content type, or neither a JSON body (content-type: application/json) nor an x-sandbox-* header: what a form or a no-cors fetch sends',
}

function errorRef(shape: ErrorShape, status: number): string {
  const name =
    shape === 'message' || (shape === 'error' && status >= 500)
      ? 'MessageText'
      : shape === 'error'
        ? 'ErrorText'
        : 'StandardError'
  return `#/components/schemas/${name}`
}

/**
 * The body of an error: the route's own shape; a gateway's 429/502/503 (scenarios) and the
 * error-shapes scenario answer other shapes on `/api` operations (control routes meet no scenario).
 */
function errorSchema(route: RouteDef, status: number): Json {
  const own = { $ref: errorRef(route.errorShape ?? 'standard', status) }
  if (route.auth.kind === 'control') return own
  return { anyOf: [own, { $ref: '#/components/schemas/ReshapedError' }] }
}

/**
 * JSON Schema of what a client sends (`input`) or receives (`output`); transforms become `{}`.
 * zod bounds every integer by ±2^53-1 and refuses past them, so those bounds stay: they are rules.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json
  delete out.$schema
  return out
}

function parameters(route: RouteDef): Json[] {
  const out: Json[] = []
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1])
  const path = route.params ? jsonSchema(route.params, 'input') : undefined
  for (const name of names) {
    const schema = (path?.properties as Record<string, Json> | undefined)?.[name] ?? { type: 'string' }
    out.push({ name, in: 'path', required: true, schema })
  }
  const querySchema = route.query ?? route.reads?.query
  if (querySchema) {
    const query = jsonSchema(querySchema, 'input')
    const required = new Set((query.required as string[] | undefined) ?? [])
    for (const [name, schema] of Object.entries((query.properties as Record<string, Json> | undefined) ?? {})) {
      const param: Json = { name, in: 'query', required: required.has(name), schema }
      if (schema.type === 'array') Object.assign(param, { style: 'form', explode: true })
      out.push(param)
    }
  }
  return out
}

/**
 * Bodies a handler checks with a schema of its own, loaded with the handler (the browser
 * entry's budget): the document states that schema.
 */
const ownBodies: Record<string, z.ZodType> = {
  sandboxAddOverride: overrideRequest,
  sandboxReplaceOverride: overrideRequest,
}

function requestBody(route: RouteDef): Json | undefined {
  const own = ownBodies[route.id]
  if (own) return { required: true, content: { 'application/json': { schema: jsonSchema(own, 'input') } } }
  if (route.reads?.form)
    return {
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: jsonSchema(route.reads.form, 'input') } },
    }
  if (route.reads?.json)
    return { required: true, content: { 'application/json': { schema: jsonSchema(route.reads.json, 'input') } } }
  if (!route.body) return undefined
  if (route.body === 'multipart') {
    // docs/assumptions.md: every multipart route takes its files in the field `file`.
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: {
                type: 'array',
                minItems: 1,
                maxItems: FILES_PER_UPLOAD,
                items: {
                  type: 'string',
                  contentMediaType: 'application/octet-stream',
                  minLength: 1,
                  maxLength: FILE_LIMIT,
                },
                description: `1 to ${FILES_PER_UPLOAD} files of 1 byte to 10 MB (${FILE_LIMIT} bytes) each, each an image or a PDF: declared so (its part's content type, image/* or application/pdf) and so by its first bytes (JPEG, PNG, GIF, WebP, BMP, TIFF, HEIC, AVIF or PDF); a file name of at most 255 characters`,
              },
            },
          },
          encoding: { file: { contentType: 'image/*, application/pdf' } },
        },
      },
    }
  }
  if (route.body === 'snapshot') {
    return {
      required: true,
      content: {
        'application/json': {
          schema: { type: 'object', description: 'A snapshot taken with GET /__sandbox/snapshot (at most 256 MB)' },
        },
      },
    }
  }
  return {
    required: !route.body.safeParse(undefined).success,
    content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
  }
}

function security(route: RouteDef): Json[] {
  switch (route.auth.kind) {
    case 'public':
      return []
    case 'user':
      // Any backoffice token: the principal decides what it may do (src/core/auth/principal.ts).
      return [{ session: [] }, { apiToken: [] }, { agentToken: [] }, { agentOAuth: [AGENT_SCOPE] }]
    case 'portal':
      return [{ portalBearer: [] }]
    case 'control':
      // Open on loopback; elsewhere the token given with --control-token.
      return [{ controlToken: [] }, {}]
  }
}

/** Every status the pipeline, the route and the scenarios may answer for a route, besides success. */
function errorStatuses(route: RouteDef): number[] {
  // 400: a bad x-sandbox-id (and x-sandbox-scenario); 500: a failure of the sandbox itself.
  const statuses = new Set([400, 500, ...Object.keys(route.errors ?? {}).map(Number)])
  if (route.body) statuses.add(413).add(415)
  if (route.reads?.form || route.reads?.json) statuses.add(413)
  if (route.auth.kind === 'control' && !route.auth.page) statuses.add(401)
  // A foreign page (control/origin.ts): 403 on every control route, 415 on a simple POST.
  if (route.auth.kind === 'control') statuses.add(403)
  if (route.auth.kind === 'control' && route.method === 'POST') statuses.add(415)
  if (route.auth.kind === 'user' || route.auth.kind === 'portal') statuses.add(401).add(403)
  if (route.params) statuses.add(404)
  if (route.auth.kind !== 'control') {
    statuses.add(429)
    if (route.method === 'GET') statuses.add(502).add(503).add(504)
    if (route.effect) statuses.add(504)
  }
  return [...statuses].sort((a, b) => a - b)
}

function operation(route: RouteDef): Json {
  const success = route.response ?? {}
  const ok: Json = {
    description: success.description ?? 'Success',
    content: {
      [success.mediaType ?? 'application/json']: success.schema ? { schema: jsonSchema(success.schema, 'output') } : {},
    },
  }
  if (route.assumed)
    ok.headers = {
      'x-sandbox-assumed': {
        description: 'The specification does not document this operation',
        schema: { type: 'string', const: 'true' },
      },
    }
  const responses: Json = { [String(success.status ?? 200)]: ok }
  // Any request can meet a server's header limit (Node's is 16 KB in all); Node answers it without a body.
  responses['431'] = {
    description:
      "Request header fields too large: over the server's limit (16 KB in all on the Node server), answered with no body",
  }
  for (const status of errorStatuses(route)) {
    const control =
      route.auth.kind === 'control' && (status !== 415 || route.method === 'POST') ? controlReasons[status] : undefined
    responses[String(status)] = {
      description: route.errors?.[status] ?? control ?? reasons[status] ?? 'Error',
      content: {
        'application/json': { schema: errorSchema(route, status) },
        ...(route.htmlErrors?.includes(status) && { 'text/html': { schema: { type: 'string' } } }),
      },
    }
  }
  const op: Json = { operationId: route.id, summary: route.summary, tags: [route.tag] }
  const params = parameters(route)
  params.push({ $ref: '#/components/parameters/SandboxId' })
  if (route.auth.kind !== 'control') params.push({ $ref: '#/components/parameters/SandboxScenario' })
  op.parameters = params
  const body = requestBody(route)
  if (body) op.requestBody = body
  op.responses = responses
  op.security = security(route)
  if (route.auth.kind === 'user' && route.auth.permission) op['x-sandbox-permission'] = route.auth.permission
  if (route.auth.kind === 'portal') {
    op.description = PORTAL_SIGN_IN
    op['x-sandbox-portal-role'] = route.auth.role
  }
  if (route.effect) op['x-sandbox-effect'] = true
  if (route.assumed) op['x-sandbox-assumed'] = true
  return op
}

export interface OpenApiOptions {
  /** The served origin, for `servers`. */
  serverUrl?: string
  strict?: boolean
  /** The sandbox's own URL (origin and base path), the OAuth issuer: the `resource` values it takes. */
  issuer?: string
  /** The scenario names `x-sandbox-scenario` takes (the app's registry). */
  scenarios?: readonly string[]
  /** Each scenario's options as JSON Schema (scenario-list.ts `optionsSchema`): an entry's object form, exactly. */
  scenarioOptions?: Readonly<Record<string, Json>>
}

const PORTAL_SIGN_IN =
  "Needs a portal token (security scheme portalBearer): POST /api/portal/auth/magic-link with a portal contact's e-mail, read the link's token from GET /__sandbox/outbox?kind=magic-link, and POST it to /api/portal/auth/verify; data.token is the portal token"

/** The OpenAPI 3.1 document of a route list: generated from the table, never written by hand. */
export function openapiDocument(routes: readonly RouteDef[], options: OpenApiOptions = {}): Json {
  const paths: Record<string, Json> = {}
  const links = operationLinks(routes, (r) =>
    r.response?.schema ? jsonSchema(r.response.schema, 'output') : undefined,
  )
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    paths[path] ??= {}
    const op = operation(route)
    const own = links.get(route)
    if (own) (op.responses as Record<string, Json>)[String(route.response?.status ?? 200)].links = own
    paths[path][route.method.toLowerCase()] = op
  }
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Fleet Operations Backoffice API (fleet-sandbox)',
      version: '1.0.0',
      description:
        'Generated from the sandbox route table. Operations and fields the specification does not document carry `x-sandbox-assumed: true`; `--strict` serves only documented operations.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...errorSchemas, ...(options.scenarioOptions ? { ScenarioRoutes: scenarioRoutes(routes) } : {}) },
      parameters: sharedParameters(options.scenarios ?? []),
      securitySchemes: {
        session: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Backoffice session token: POST /api/session-auth/sign-in/email with a demo account (admin@fleet.test and the others of docs/contract.md) answers it in the set-auth-token header; 30 days, sliding',
        },
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Backoffice API token, prefix atk_: the seeded atk_sandbox_admin (the admin of client acme, fixtures/accounts.ts); it never expires',
        },
        agentToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `Agent JWT of scope ${AGENT_SCOPE} (1 hour): from POST /oauth/token at the end of the OAuth flow (scheme agentOAuth), or at once from POST /__sandbox/tokens/agent with a demo account's e-mail`,
        },
        agentOAuth: {
          type: 'oauth2',
          description:
            'OAuth 2.1 for agents (docs/agents.md): register a public client with POST /oauth/register, then the authorization code flow with PKCE S256; the access token is an agent JWT',
          flows: {
            authorizationCode: {
              authorizationUrl: '/oauth/authorize',
              tokenUrl: '/oauth/token',
              refreshUrl: '/oauth/token',
              scopes: { [AGENT_SCOPE]: 'The backoffice API as the signed-in user' },
            },
          },
        },
        portalBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `Client portal token (signed JWT carrying clientId and roles). ${PORTAL_SIGN_IN.replace(/^.*?: /, 'To obtain it: ')}`,
        },
        controlToken: {
          type: 'apiKey',
          in: 'header',
          name: 'x-sandbox-control-token',
          description: 'Control API token, required when the sandbox is bound to a non-loopback address',
        },
      },
    },
    'x-sandbox-strict': Boolean(options.strict),
  }
  const named = withConstEnums(withScenarioNames(document, options.scenarios ?? [], options.scenarioOptions))
  return options.issuer ? withIssuer(named, options.issuer) : named
}

/**
 * A schema marked `x-sandbox-scenario-name` takes a known scenario's name: the registry's, known
 * here. One marked `x-sandbox-scenario-entry` (an entry's object form) becomes one alternative per
 * scenario: its name, its own options, and the window's bounds.
 */
function withScenarioNames<T>(value: T, names: readonly string[], optionsOf?: Readonly<Record<string, Json>>): T {
  return mapObjects(value, (out) => {
    if (out['x-sandbox-scenario-name']) out.enum = [...names]
    if (!out['x-sandbox-scenario-entry'] || !optionsOf || !names.length) return out
    const { properties: _named, additionalProperties: _closed, required: _required, type: _type, ...rest } = out
    return {
      ...rest,
      oneOf: names.map((name) => ({
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', const: name },
          options: scoped(optionsOf[name] ?? { type: 'object' }),
          from: BOUND_SCHEMA,
          until: BOUND_SCHEMA,
        },
        additionalProperties: false,
      })),
    }
  })
}

/** Every object of a document, innermost first, as `fn` makes it (a copy: the input is left as it is). */
function mapObjects<T>(value: T, fn: (out: Json) => Json): T {
  if (Array.isArray(value)) return value.map((v) => mapObjects(v, fn)) as T
  if (!value || typeof value !== 'object') return value
  const out: Json = {}
  for (const [k, v] of Object.entries(value)) out[k] = mapObjects(v, fn)
  return fn(out) as T
}

/**
 * `const: x` also as `enum: [x]`: OpenAPI 3.0's tools (Postman's converter among them) know
 * only enum, and would send any string where one value is taken.
 */
function withConstEnums<T>(value: T): T {
  return mapObjects(value, (out) => {
    // A schema's const is a plain value; a property named "const" would hold a schema.
    const plain = out.const === null || typeof out.const !== 'object'
    if ('const' in out && plain && !('enum' in out)) out.enum = [out.const]
    return out
  })
}

/** A scenario's options in the document: `routes` as the served operations it may name (ScenarioRoutes). */
function scoped(schema: Json): Json {
  const { $schema: _root, ...rest } = schema
  const properties = rest.properties as Json | undefined
  if (!properties?.routes) return rest
  return { ...rest, properties: { ...properties, routes: { $ref: '#/components/schemas/ScenarioRoutes' } } }
}

/**
 * The `routes` option as the document states it: served operation ids, as a list or `a|b`. The
 * sandbox also takes "METHOD /path" patterns (scenarios/routes-option.ts); the document narrows to
 * the ids, each of which it accepts.
 */
function scenarioRoutes(routes: readonly RouteDef[]): Json {
  const ids = [...new Set(routes.map((r) => r.id))]
  const one = `(?:${ids.map(literal).join('|')})`
  return {
    description: 'Act on these routes only: operation ids, as a list or the text a|b',
    anyOf: [
      { type: 'array', items: { type: 'string', enum: ids }, minItems: 1, maxItems: 100 },
      { type: 'string', pattern: `^${one}(?:\\|${one}){0,99}$` },
    ],
  }
}

/** OAuth's `resource` takes this sandbox's own URLs (agents/oauth.ts `checkResource`): stated once the issuer is known. */
function withIssuer<T>(value: T, issuer: string): T {
  return mapObjects(value, (out) => {
    if (out['x-sandbox-issuer-resource']) out.pattern = `^${literal(issuer)}(?:/mcp|/)?$`
    return out
  })
}
