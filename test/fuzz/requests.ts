import type { SandboxApp } from '../../src/core/app/app.js'
import type { RouteDef } from '../../src/core/route/route.js'
import { example } from '../support/examples.js'
import { openapiDocument } from '../../src/core/control/openapi.js'

const documents = new WeakMap<SandboxApp, any>()
/** The app's OpenAPI document, built once per app and read synchronously (`app.openapi()` loads it lazily). */
export function documentOf(app: SandboxApp): any {
  if (!documents.has(app)) documents.set(app, openapiDocument(app.routes, { strict: app.options.strict }))
  return documents.get(app)
}

/* eslint-disable @typescript-eslint/no-explicit-any */

export interface Generated {
  route: RouteDef
  params: Record<string, string>
  request: Request
  /** Refused before any handler runs, so it must change nothing. */
  invalid: boolean
  what: string
}

export type Identity = Record<string, string>

/** What a generator draws from: the chance source, the sandbox, the callers and the ids of its records. */
export interface Pool {
  random(): number
  sandbox: string
  /** Callers of the backoffice (sessions, the API token) and of the portal; `{}` is nobody. */
  identities: { user: Identity[]; portal: Identity[] }
  ids: (string | number)[]
}

const ORIGIN = 'http://fuzz.test'
const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]

/** Values of every kind a field may meet. */
const oddities = [
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'null',
  'true',
  '[]',
  '{}',
  '../../etc/passwd',
  '%00',
  'ñandú',
  '\u202e',
  'x'.repeat(300),
  "' OR 1=1 --",
  '<script>',
  '9007199254740993',
]
const oddValues = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 53,
  -(2 ** 31),
  1e308,
  '',
  'x',
  [],
  {},
  [1, 'a'],
  { a: { b: [null] } },
]

function operation(app: SandboxApp, route: RouteDef): any {
  const doc = documentOf(app) as { paths: Record<string, Record<string, any>> }
  return doc.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()]
}

/** A body that keeps the example's shape with some fields replaced by odd values, or the example itself. */
function mutate(value: unknown, random: () => number): unknown {
  if (random() < 0.15) return pick(random, oddValues)
  if (Array.isArray(value)) return value.map((v) => mutate(v, random))
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(() => random() > 0.1)
        .map(([k, v]) => [k, mutate(v, random)]),
    )
  return value
}

/** One request to `route`: valid-looking (real ids, examples, mutations) or certainly invalid. */
export function generate(app: SandboxApp, route: RouteDef, pool: Pool, invalid: boolean): Generated {
  const { random } = pool
  const op = operation(app, route)
  const inline = (op.parameters ?? []).filter((p: any) => !p.$ref)
  // Mostly a caller of the route's kind, sometimes anyone (or nobody).
  const all = [{}, ...pool.identities.user, ...pool.identities.portal]
  const fitting =
    route.auth.kind === 'user' ? pool.identities.user : route.auth.kind === 'portal' ? pool.identities.portal : [{}]
  const headers: Record<string, string> = {
    'x-sandbox-id': pool.sandbox,
    ...pick(random, random() < 0.2 ? all : fitting),
  }
  const params: Record<string, string> = {}
  for (const p of inline.filter((p: any) => p.in === 'path')) {
    const r = random()
    params[p.name] = String(
      r < 0.5 && pool.ids.length ? pick(random, pool.ids) : r < 0.8 ? example(p.schema) : pick(random, oddities),
    )
  }
  const query = new URLSearchParams()
  for (const p of inline.filter((p: any) => p.in === 'query')) {
    const r = random()
    if (r < 0.4) continue
    query.set(p.name, String(r < 0.8 ? example(p.schema) : pick(random, oddities)))
  }
  const jsonBody = op.requestBody?.content?.['application/json']?.schema
  let body: string | undefined = jsonBody
    ? JSON.stringify(random() < 0.5 ? example(jsonBody) : mutate(example(jsonBody), random))
    : undefined
  if (body !== undefined) headers['content-type'] = 'application/json'
  let what = 'valid-looking'

  if (invalid) {
    // Only what is refused before a handler runs, whatever the rest of the request says.
    const kinds = ['bad sandbox id', 'bad scenario header']
    if (route.auth.kind === 'user' || route.auth.kind === 'portal') kinds.push('no token', 'bad token', 'forged JWT')
    if (route.body && route.body !== 'multipart')
      kinds.push('bad JSON', 'not an object', 'wrong content type', 'oversize')
    if (route.body === 'multipart') kinds.push('not multipart')
    if (route.auth.kind === 'control') kinds.splice(kinds.indexOf('bad scenario header'), 1)
    what = pick(random, kinds)
    switch (what) {
      case 'bad sandbox id':
        headers['x-sandbox-id'] = pick(random, ['has space', 'x'.repeat(129), 'a/b', 'ü', '<>'])
        break
      case 'bad scenario header':
        headers['x-sandbox-scenario'] = pick(random, [
          'no-such-scenario',
          'degraded;rate=7',
          'rate-limited;failures=x',
          ',,;',
        ])
        break
      case 'no token':
        delete headers.authorization
        break
      case 'bad token':
        headers.authorization = pick(random, ['Bearer ', 'Bearer ses_nope', 'Basic YTpi', 'Bearer atk_nope', 'bearer'])
        break
      case 'forged JWT':
        headers.authorization =
          'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJmbGVldC1zYW5kYm94Iiwic3ViIjoidXNyX2FjbWVfYWRtaW4iLCJraW5kIjoiYWdlbnQifQ.c2lnbmF0dXJl'
        break
      case 'bad JSON':
        body = pick(random, ['{', '{"a":1,}', 'nul', '\u0000', '{"a":"\ud800"'])
        headers['content-type'] = 'application/json'
        break
      case 'not an object':
        body = pick(random, ['42', '"text"', 'null', '[1,2]', 'true'])
        headers['content-type'] = 'application/json'
        break
      case 'wrong content type':
        body = body ?? '{}'
        headers['content-type'] = pick(random, ['text/plain', 'application/xml', 'multipart/form-data; boundary=x'])
        break
      case 'oversize':
        body = JSON.stringify({ pad: 'x'.repeat(route.body === 'snapshot' ? 10 : 1_048_577) })
        // The snapshot's limit is 256 MB: a missing collection refuses it instead.
        headers['content-type'] = 'application/json'
        break
      case 'not multipart':
        body = '{}'
        headers['content-type'] = 'application/json'
        break
    }
  } else if (route.auth.kind !== 'control' && random() < 0.05) {
    headers['x-sandbox-scenario'] = pick(random, [
      'degraded;rate=1',
      'commit-then-fail',
      'rate-limited',
      'error-shapes',
      'forbidden',
      'empty',
      'session-expired',
    ])
  }

  let path = route.path
  for (const [name, value] of Object.entries(params)) path = path.replace(`:${name}`, encodeURIComponent(value))
  const url = `${ORIGIN}${path}${query.size ? `?${query}` : ''}`
  const request = new Request(url, { method: route.method, headers, body: route.method === 'GET' ? undefined : body })
  return { route, params, request, invalid, what }
}
