import * as z from 'zod'
import { badRequest } from '../http/reply.js'
import { BOUND_SCHEMA, parseBound } from '../scenarios/window.js'
import type { RouteInfo } from '../route/types.js'
import { FRAMING, FRAMING_RULE, HEADER_NAME, HEADER_VALUE, HEADER_VALUE_RULE, NO_BODY } from '../http/answer-rules.js'

/**
 * An override: a stub of one route's answer over the control API (docs/your-own-answers.md),
 * as WireMock's mappings or MSW's `use()`. Everything a user sends is checked here with a
 * message naming the field and the rule; what is kept is plain JSON (snapshots, storage).
 */
export interface Override {
  id: string
  name: string | null
  /** The route it answers for, by operation id: the index key. */
  operation: string
  match: {
    method: string
    path: string
    /** Path params a concrete path fixed (`/api/notifications/abc` → `{id: 'abc'}`). */
    params: Record<string, string> | null
    query: Record<string, string | string[]> | null
    headers: Record<string, string> | null
    body: unknown
    anonymous: boolean
  }
  respond:
    | { status: number; headers: Record<string, string>; body: unknown; delayMs: number }
    | { error: 'network'; delayMs: number }
  times: number | null
  used: number
  from: string | null
  until: string | null
  priority: number
  /** Order of creation: the newest wins among equals. */
  seq: number
  createdAt: string
}

export const DELAY_LIMIT_MS = 60_000
const headerValue = z.string().max(8192).regex(HEADER_VALUE, HEADER_VALUE_RULE)
const headerMap = z
  .record(z.string(), headerValue)
  .refine((h) => Object.keys(h).length <= 50, 'must have at most 50 headers')
  .superRefine((h, ctx) => {
    for (const name of Object.keys(h))
      if (!HEADER_NAME.test(name))
        ctx.addIssue({ code: 'custom', message: 'must be a header name (RFC 9110 token)', path: [name] })
  })
/** An answer's headers: besides the above, none the server writes itself. */
const answerHeaders = headerMap.superRefine((h, ctx) => {
  for (const name of Object.keys(h))
    if (FRAMING.has(name.toLowerCase())) ctx.addIssue({ code: 'custom', message: FRAMING_RULE, path: [name] })
})
/** 204, 205 and 304 answers carry no body: one given would not be written. */
const noBodyFor = (a: { status: number; body?: unknown }) =>
  !NO_BODY.has(a.status) || a.body === undefined || a.body === null
const noBodyRule = { message: 'must be left out for a 204, 205 or 304 answer (those carry no body)', path: ['body'] }
const queryMap = z
  .record(
    z.string().max(256),
    z.union([z.string().max(2048), z.array(z.string().max(2048)).max(20)], {
      error: 'must be a text or a list of texts',
    }),
  )
  .refine((q) => Object.keys(q).length <= 50, 'must have at most 50 parameters')
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const
const delay = z
  .number()
  .int('must be whole milliseconds')
  .min(0, 'must be 0 or more')
  .max(DELAY_LIMIT_MS, `must be at most ${DELAY_LIMIT_MS}`)

/** Which of the two shapes `respond` has is read from whether `error` is there, so a message names the inner field. */
const networkSchema = z.strictObject({
  error: z.literal('network', { error: 'must be "network"' }),
  delayMs: delay.optional(),
})
const answerSchema = z
  .strictObject({
    status: z
      .number({ error: 'must be an integer from 200 to 599' })
      .int('must be an integer from 200 to 599')
      .min(200, 'must be an integer from 200 to 599')
      .max(599, 'must be an integer from 200 to 599'),
    headers: answerHeaders.optional(),
    body: z.unknown().optional(),
    delayMs: delay.optional(),
  })
  .refine(noBodyFor, noBodyRule)
  // The refinement as the document states it.
  .meta({
    if: { properties: { status: { enum: [...NO_BODY] } }, required: ['status'] },
    then: { properties: { body: { type: 'null' } } },
  })

const inputSchema = z.strictObject({
  match: z
    .strictObject({
      method: z
        .string({ error: `must be one of ${METHODS.join(', ')}` })
        .transform((m) => m.toUpperCase())
        .pipe(z.enum(METHODS, { error: `must be one of ${METHODS.join(', ')}` }))
        // Any case is taken; the document names them as written here.
        .meta({ enum: [...METHODS] }),
      path: z.string().min(1).max(2048).optional(),
      operation: z.string().min(1).max(200).optional(),
      query: queryMap.optional(),
      headers: headerMap.optional(),
      body: z.unknown().optional(),
      anonymous: z.boolean().optional(),
    })
    .refine((m) => (m.path === undefined) !== (m.operation === undefined), {
      message: 'give either path or operation (one of them)',
      path: ['path'],
    })
    .meta({ oneOf: [{ required: ['path'] }, { required: ['operation'] }] }),
  respond: z.custom<object>(
    (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
    'must be {status, headers?, body?, delayMs?} or {error: "network", delayMs?}',
  ),
  times: z.number().int().min(1, 'must be a whole number from 1').max(1_000_000).optional(),
  from: z.unknown().optional().meta(BOUND_SCHEMA),
  until: z.unknown().optional().meta(BOUND_SCHEMA),
  priority: z.number().int().min(-1000).max(1000).optional(),
  name: z
    .string()
    .regex(/^[\w.:-]{1,100}$/, 'must be 1 to 100 letters, digits, ".", ":", "_" or "-"')
    .optional(),
})

/** What the served document states of an override (routes.ts): the input with \`respond\`'s two shapes. */
export const overrideRequest = inputSchema.extend({ respond: z.union([answerSchema, networkSchema]) })

/** Where a route's path has a param: `{id}` as documented, `:id` as the table writes it. */
const paramSegment = (s: string) => /^(\{[^}]+\}|:\w+)$/.test(s)
const segments = (path: string) => path.split('/').filter(Boolean)

/** What the matcher answers for a method and a concrete path: the route and its params. */
export type Resolve = (method: string, path: string) => { route?: RouteInfo; params?: Record<string, string> }

/**
 * The override a control call asked for, checked: a 400 naming the first wrong field. `resolve`
 * is the app's one matcher; `routes` the served table; windows are fixed on `now`.
 */
export function parseOverride(
  input: unknown,
  routes: readonly RouteInfo[],
  resolve: Resolve,
  now: number,
  id: string,
  seq: number,
): Override {
  const o = checked(inputSchema, input, [])
  const given = o.respond as Record<string, unknown>
  const answer =
    'error' in given ? checked(networkSchema, given, ['respond']) : checked(answerSchema, given, ['respond'])
  const { route, params } = routeOf(o.match, routes, resolve)
  if (route.auth.kind === 'control')
    throw badRequest(`match.path: ${route.method} ${route.path} is the control API; overrides shape the API's answers`)
  const bodyBytes = o.match.body === undefined ? 0 : JSON.stringify(o.match.body).length
  const answerBytes = 'status' in answer && answer.body !== undefined ? JSON.stringify(answer.body).length : 0
  if (bodyBytes > 65_536) throw badRequest('match.body: must be at most 64 KB as JSON')
  if (answerBytes > 1_048_576) throw badRequest('respond.body: must be at most 1 MB as JSON')
  const from = parseBound(o.from, 'from')
  const until = parseBound(o.until, 'until')
  const fixed = fixBounds(from, until, now)
  const respond: Override['respond'] =
    'status' in answer
      ? {
          status: answer.status,
          headers: lower(answer.headers ?? {}),
          body: answer.body ?? null,
          delayMs: answer.delayMs ?? 0,
        }
      : { error: 'network', delayMs: answer.delayMs ?? 0 }
  return {
    id,
    name: o.name ?? null,
    operation: route.id,
    match: {
      method: route.method,
      path: o.match.path ?? route.path,
      params: params ?? null,
      query: o.match.query ?? null,
      headers: o.match.headers ? lower(o.match.headers) : null,
      body: o.match.body === undefined ? null : o.match.body,
      anonymous: o.match.anonymous ?? false,
    },
    respond,
    times: o.times ?? null,
    used: 0,
    ...fixed,
    priority: o.priority ?? 0,
    seq,
    createdAt: new Date(now).toISOString(),
  }
}

/** The value as `schema` reads it, or a 400 naming the first wrong field (`at` is where the value sits). */
function checked<T>(schema: z.ZodType<T>, value: unknown, at: string[]): T {
  const parsed = schema.safeParse(value, { error: ourWords })
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = [...at, ...issue.path.map(String)].join('.') || 'body'
  const rule = issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : issue.message
  throw badRequest(`${where}: ${rule}`)
}

const KINDS: Record<string, string> = {
  string: 'a text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  record: 'an object',
}

/**
 * The rule in our words where a schema gives none (zod's own read as the validator's: "Invalid
 * input: expected string, received undefined"). Schema-level messages still win.
 */
function ourWords(issue: z.core.$ZodRawIssue): string | undefined {
  const kind = (expected: unknown) => KINDS[String(expected)] ?? String(expected)
  const size = (n: unknown, origin: unknown) =>
    origin === 'string'
      ? `${n} characters`
      : origin === 'array' || origin === 'set'
        ? `${n} items`
        : origin === 'object'
          ? `${n} fields`
          : String(n)
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `is required: ${kind(issue.expected)}` : `must be ${kind(issue.expected)}`
    case 'too_big':
      return `must be at most ${size(issue.maximum, issue.origin)}`
    case 'too_small':
      return issue.origin === 'string' && issue.minimum === 1
        ? 'must not be empty'
        : `must be at least ${size(issue.minimum, issue.origin)}`
    default:
      return undefined
  }
}

function routeOf(
  match: { method: string; path?: string; operation?: string },
  routes: readonly RouteInfo[],
  resolve: Resolve,
): { route: RouteInfo; params?: Record<string, string> } {
  if (match.operation !== undefined) {
    const route = routes.find((r) => r.id === match.operation)
    if (!route) throw badRequest(`match.operation: no operation "${match.operation}" (docs/routes.md lists them)`)
    if (route.method !== match.method && !(match.method === 'HEAD' && route.method === 'GET'))
      throw badRequest(`match.method: ${match.operation} is ${route.method}, not ${match.method}`)
    return { route }
  }
  const path = match.path!
  // A query in the path would be ignored and the override would answer the plain list too.
  const q = path.search(/[?#]/)
  if (q >= 0)
    throw badRequest(
      `match.path: must be a path without a query; put "${path.slice(q)}" in match.query: ${JSON.stringify(Object.fromEntries(new URLSearchParams(path.slice(q + 1).split('#')[0])))}`,
    )
  if (!path.startsWith('/')) throw badRequest('match.path: must start with "/"')
  const method = match.method === 'HEAD' ? 'GET' : match.method
  // A route of the table, written with {params} (or :params).
  if (segments(path).some(paramSegment)) {
    const want = segments(path)
    const route = routes.find((r) => r.method === method && sameTemplate(segments(r.path), want))
    if (!route) throw badRequest(`match.path: no route ${method} ${path} (docs/routes.md lists them)`)
    return { route }
  }
  // A concrete path: the route the matcher finds for it, with its params fixed.
  const found = resolve(method, path)
  if (!found.route) throw badRequest(`match.path: no route answers ${method} ${path} (docs/routes.md lists them)`)
  const hasParams = found.params && Object.keys(found.params).length > 0
  return { route: found.route, params: hasParams ? found.params : undefined }
}

function sameTemplate(route: string[], want: string[]): boolean {
  return (
    route.length === want.length && route.every((s, i) => (paramSegment(s) ? paramSegment(want[i]) : s === want[i]))
  )
}

function fixBounds(
  from: string | null,
  until: string | null,
  now: number,
): { from: string | null; until: string | null } {
  const at = (bound: string | null, field: string) => {
    if (bound === null) return null
    const rel = /^\+(\d{1,9})(s|m|h|d)$/.exec(bound)
    const ms = rel
      ? now + Number(rel[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[rel[2] as 's']!
      : Date.parse(bound)
    if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw badRequest(`${field}: out of the clock's range`)
    return ms
  }
  const f = at(from, 'from')
  const u = at(until, 'until')
  if (f !== null && u !== null && u <= f)
    throw badRequest('until: must be later than from (the window is [from, until))')
  // A window that closed before it was defined would never answer.
  if (u !== null && u <= now)
    throw badRequest(
      `until: must be later than the sandbox's now (${new Date(now).toISOString()}); this window has closed`,
    )
  return { from: f === null ? null : new Date(f).toISOString(), until: u === null ? null : new Date(u).toISOString() }
}

function lower(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v
  return out
}

const bound = z.string().nullable()
/** An override as snapshots and storage keep it: checked for its shape on restore, as the rest of a snapshot is. */
export const storedOverride = z.object({
  id: z.string().max(100),
  name: z.string().max(100).nullable(),
  operation: z.string().max(200),
  match: z.object({
    method: z.enum(METHODS),
    path: z.string().max(2048),
    params: z.record(z.string(), z.string()).nullable(),
    query: queryMap.nullable(),
    headers: headerMap.nullable(),
    body: z.unknown(),
    anonymous: z.boolean(),
  }),
  respond: z.union([
    z
      .object({
        status: z.number().int().min(200).max(599),
        headers: answerHeaders,
        body: z.unknown(),
        delayMs: z.number().int().min(0).max(DELAY_LIMIT_MS),
      })
      .refine(noBodyFor, noBodyRule),
    z.object({ error: z.literal('network'), delayMs: z.number().int().min(0).max(DELAY_LIMIT_MS) }),
  ]),
  times: z.number().int().min(1).nullable(),
  used: z.number().int().min(0),
  from: bound,
  until: bound,
  priority: z.number().int().min(-1000).max(1000),
  seq: z.number().int().min(0),
  createdAt: z.string(),
})

/** A snapshot's overrides, each checked for its shape: a 400 naming `overrides.<i>.<field>`. */
export function storedOverrides(list: readonly unknown[]): Override[] {
  return list.map((o, i) => checked(storedOverride, o, ['overrides', String(i)]) as Override)
}
