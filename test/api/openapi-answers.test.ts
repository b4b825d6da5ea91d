import { beforeAll, describe, expect, it } from 'vitest'
import type { RouteDef } from '../../src/core/route/route.js'
import { ADMIN_TOKEN } from '../support/client.js'
import { example } from '../support/examples.js'
import { checker, type Doc } from '../support/openapi-answers.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/* eslint-disable @typescript-eslint/no-explicit-any */
const CONTROL_TOKEN = 'control-secret'

interface Probe {
  what: string
  path: string
  init: RequestInit & { headers: Record<string, string> }
}

/** Valid and invalid requests for one operation of the document. */
function probes(route: RouteDef, op: any, auth: Record<string, string>, sandbox: string): Probe[] {
  const inline = (op.parameters ?? []).filter((p: any) => !p.$ref)
  let path = route.path
  for (const p of inline.filter((p: any) => p.in === 'path'))
    path = path.replace(`:${p.name}`, encodeURIComponent(String(example(p.schema))))
  const query = new URLSearchParams()
  for (const p of inline.filter((p: any) => p.in === 'query' && p.required))
    query.set(p.name, String(example(p.schema)))
  const badQuery = new URLSearchParams()
  for (const p of inline.filter((p: any) => p.in === 'query')) badQuery.set(p.name, '@@not-valid@@')
  const jsonBody = op.requestBody?.content?.['application/json']
  const body = jsonBody ? JSON.stringify(example(jsonBody.schema)) : undefined
  const base = { 'x-sandbox-id': sandbox, ...(body ? { 'content-type': 'application/json' } : {}) }
  const at = (q: URLSearchParams) => (q.size ? `${path}?${q}` : path)
  const out: Probe[] = [
    { what: 'valid', path: at(query), init: { method: route.method, headers: { ...base, ...auth }, body } },
    {
      what: 'bad x-sandbox-id',
      path: at(query),
      init: { method: route.method, headers: { ...base, ...auth, 'x-sandbox-id': 'not valid!' }, body },
    },
  ]
  // Past Node's 16 KB header limit: the Node engine answers 431 (issue 25); the others may serve it.
  out.push({
    what: 'oversized headers',
    path: at(query),
    init: { method: route.method, headers: { ...base, ...auth, 'x-pad': 'x'.repeat(17_000) }, body },
  })
  if (Object.keys(auth).length)
    out.push({ what: 'no token', path: at(query), init: { method: route.method, headers: base, body } })
  if (badQuery.size)
    out.push({
      what: 'bad query',
      path: at(badQuery),
      init: { method: route.method, headers: { ...base, ...auth }, body },
    })
  if (route.body) {
    const type = route.body === 'multipart' ? 'multipart/form-data; boundary=x' : 'application/json'
    out.push(
      {
        what: 'bad JSON',
        path: at(query),
        init: {
          method: route.method,
          headers: { ...base, ...auth, 'content-type': 'application/json' },
          body: '{"a":',
        },
      },
      {
        what: 'wrong content type',
        path: at(query),
        init: { method: route.method, headers: { ...base, ...auth, 'content-type': 'text/plain' }, body: 'hello' },
      },
      {
        what: 'body too large',
        path: at(query),
        init: {
          method: route.method,
          headers: { ...base, ...auth, 'content-type': type },
          body: `"${'x'.repeat(route.body === 'multipart' ? 52 * 1_048_576 : 1_048_577)}"`,
        },
      },
    )
    if (jsonBody)
      out.push({
        what: 'wrong types',
        path: at(query),
        init: {
          method: route.method,
          headers: { ...base, ...auth },
          body: JSON.stringify(retype(example(jsonBody.schema))),
        },
      })
  }
  if (route.auth.kind !== 'control') {
    const scenarios = [
      'rate-limit-exhausted',
      'degraded;rate=1',
      'commit-then-fail',
      'forbidden',
      'error-shapes',
      'no-such-scenario',
    ]
    for (const s of scenarios)
      out.push({
        what: `scenario ${s}`,
        path: at(query),
        init: { method: route.method, headers: { ...base, ...auth, 'x-sandbox-scenario': s }, body },
      })
    out.push({
      what: 'error-shapes without a token',
      path: at(query),
      init: { method: route.method, headers: { ...base, 'x-sandbox-scenario': 'error-shapes' }, body },
    })
  }
  return out
}

/** Every leaf of another type: strings become numbers, the rest strings. */
function retype(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(retype)
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, retype(v)]))
  return typeof value === 'string' ? 12345 : 'not-this-type'
}

const operationOf = (doc: Doc, route: RouteDef) =>
  doc.paths[route.path.replace(/:(\w+)/g, '{$1}')][route.method.toLowerCase()]

describe.each(runtimes)('every answer matches the served OpenAPI document through $name', (runtime) => {
  let doc: Doc
  let check: ReturnType<typeof checker>
  let portalToken: string
  describe('open control API', () => {
    const rt = useSandbox(runtime)
    beforeAll(async () => {
      doc = await (await rt.fetch('/__sandbox/openapi.json')).json()
      check = checker(doc)
      const s = rt.client(null, 'oa-portal')
      await s.post('/api/portal/auth/magic-link', { email: 'owner@acme.test' })
      const [link] = (await s.control.get('/outbox?kind=magic-link')).body.outbox
      portalToken = (await s.post('/api/portal/auth/verify', { token: link.token })).body.data.token
    })

    it('for valid and invalid requests to every operation of the route table', async () => {
      const problems: string[] = []
      let sent = 0
      const seen = new Set<number>()
      for (const route of rt.app.routes) {
        const op = operationOf(doc, route)
        const auth: Record<string, string> =
          route.auth.kind === 'user'
            ? { authorization: `Bearer ${ADMIN_TOKEN}` }
            : route.auth.kind === 'portal'
              ? { authorization: `Bearer ${portalToken}` }
              : {}
        const sandbox = route.auth.kind === 'portal' ? 'oa-portal' : `oa-${route.id}`
        for (const probe of probes(route, op, auth, sandbox)) {
          const res = await rt.fetch(probe.path, probe.init)
          seen.add(res.status)
          const problem = await check(op, `${route.method} ${route.path} (${probe.what})`, res)
          if (problem) problems.push(problem)
          sent++
        }
      }
      expect(problems).toEqual([])
      // The probes reach the pipeline's, the handlers' and the scenarios' answers.
      for (const status of [200, 201, 400, 401, 403, 404, 413, 415, 429, 500, 502])
        expect(seen, `status ${status}`).toContain(status)
      if (runtime.name.startsWith('hono')) expect(seen, 'status 431').toContain(431)
      expect(sent).toBeGreaterThan(rt.app.routes.length * 4)
    }, 120_000)
  })

  describe('under --control-token', () => {
    // Its own block: two msw/node servers of one origin would both answer.
    const guarded = useSandbox(runtime, { control: { token: CONTROL_TOKEN } })
    it('for control operations without the token under --control-token (401)', async () => {
      const problems: string[] = []
      for (const route of guarded.app.routes.filter((r) => r.auth.kind === 'control')) {
        const op = operationOf(doc, route)
        for (const probe of probes(route, op, {}, 'oa-guarded').slice(0, 1)) {
          const res = await guarded.fetch(probe.path, probe.init)
          if (!(route.auth.kind === 'control' && route.auth.page)) expect(res.status, route.id).toBe(401)
          const problem = await check(op, `${route.method} ${route.path} (no control token)`, res)
          if (problem) problems.push(problem)
        }
      }
      expect(problems).toEqual([])
    })
  })
})
