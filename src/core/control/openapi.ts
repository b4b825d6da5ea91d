import * as z from 'zod'
import type { ErrorShape } from '../http/reply.js'
import type { RouteDef } from '../app/route.js'

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

const sharedParameters: Record<string, Json> = {
  SandboxId: {
    name: 'x-sandbox-id',
    in: 'header',
    required: false,
    description:
      'The isolated sandbox to use (1 to 128 letters, digits, ".", ":", "_" or "-"); another value is a 400. Without it, the cookie sandbox-id, else the default sandbox',
    schema: { type: 'string' },
  },
  SandboxScenario: {
    name: 'x-sandbox-scenario',
    in: 'header',
    required: false,
    description: 'Scenarios for this request only: NAME[,NAME] (an unknown one is a 400)',
    schema: { type: 'string' },
  },
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

/** JSON Schema of what a client sends (`input`) or receives (`output`); transforms become `{}`. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json
  delete out.$schema
  return withoutSafeBounds(out)
}

/** zod bounds every integer by ±2^53-1; those bounds say nothing to a reader, so they go. */
function withoutSafeBounds<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutSafeBounds) as T
  if (!value || typeof value !== 'object') return value
  const out: Json = {}
  for (const [k, v] of Object.entries(value)) {
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue
    out[k] = withoutSafeBounds(v)
  }
  return out as T
}

function parameters(route: RouteDef): Json[] {
  const out: Json[] = []
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1])
  const path = route.params ? jsonSchema(route.params, 'input') : undefined
  for (const name of names) {
    const schema = (path?.properties as Record<string, Json> | undefined)?.[name] ?? { type: 'string' }
    out.push({ name, in: 'path', required: true, schema })
  }
  if (route.query) {
    const query = jsonSchema(route.query, 'input')
    const required = new Set((query.required as string[] | undefined) ?? [])
    for (const [name, schema] of Object.entries((query.properties as Record<string, Json> | undefined) ?? {})) {
      const param: Json = { name, in: 'query', required: required.has(name), schema }
      if (schema.type === 'array') Object.assign(param, { style: 'form', explode: true })
      out.push(param)
    }
  }
  return out
}

function requestBody(route: RouteDef): Json | undefined {
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
                items: { type: 'string', contentMediaType: 'application/octet-stream' },
                description: 'One or more files, at most 10 MB (10,485,760 bytes) each',
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
      return [{ bearer: [] }]
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
      content: { 'application/json': { schema: errorSchema(route, status) } },
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
  if (route.auth.kind === 'portal') op['x-sandbox-portal-role'] = route.auth.role
  if (route.effect) op['x-sandbox-effect'] = true
  if (route.assumed) op['x-sandbox-assumed'] = true
  return op
}

export interface OpenApiOptions {
  /** The served origin, for `servers`. */
  serverUrl?: string
  strict?: boolean
}

/** The OpenAPI 3.1 document of a route list: generated from the table, never written by hand. */
export function openapiDocument(routes: readonly RouteDef[], options: OpenApiOptions = {}): Json {
  const paths: Record<string, Json> = {}
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = operation(route)
  }
  return {
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
      schemas: errorSchemas,
      parameters: sharedParameters,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Backoffice: a session token (from set-auth-token), an atk_ API token or an agent JWT (scope service:api)',
        },
        portalBearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'Client portal token (signed JWT carrying clientId and roles), from POST /api/portal/auth/verify',
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
}
