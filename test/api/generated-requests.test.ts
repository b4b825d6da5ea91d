import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import fc from 'fast-check'
import { mkdirSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN } from '../support/client.js'
import { checker, type Doc } from '../support/openapi-answers.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { SchemaData } from '../support/schema-data.js'

/*
 * Issue 53: requests generated from the served document alone, as a generic OpenAPI tester makes
 * them, for every operation: valid ones (fast-check over each schema, kept when the document's
 * own validator accepts them) and, from a valid one, one broken request per rule the document
 * states. A valid request is never refused for its shape (a 400 names a rule the operation's
 * document states); a broken one is always a 400 naming the field; no 5xx; every answer is the
 * document's. Each is sent signed in, and the secured ones without a token and with a bad one.
 * Counts are printed per engine (docs/testing.md quotes them).
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Op = any

const VALID_PER_OPERATION = 6
const SEED = 53

/** A tiny file of each kind the upload takes, by declared type (its first bytes are what the sandbox sniffs). */
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])

interface Sent {
  kind: 'valid' | 'invalid' | 'no token' | 'bad token'
  what: string
  /** For an invalid request: the field named, and the rule broken. */
  field?: string
  /** A member gone from a union (a discriminator): its object may be named instead. */
  parent?: string
  path: string
  init: RequestInit & { headers: Record<string, string> }
}

interface Parts {
  path: Record<string, unknown>
  query: Record<string, unknown>
  headers: Record<string, string>
  body?: unknown
}

function validators(doc: Doc) {
  const make = (coerce: boolean) => {
    const ajv = new Ajv2020({
      strict: false,
      allErrors: false,
      validateSchema: false,
      coerceTypes: coerce ? 'array' : false,
    })
    addFormats.default(ajv)
    ajv.addSchema({ $id: 'openapi', components: doc.components })
    return ajv
  }
  const plain = make(false)
  const coercing = make(true)
  const cache = new Map<string, ValidateFunction>()
  /** Whether the document allows `value` by `schema`; `text` for query, path and header values (strings). */
  return (schema: object, value: unknown, text = false): boolean => {
    if (value === undefined) return false
    const source = JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')
    const key = `${text}${source}`
    let fn = cache.get(key)
    if (!fn) cache.set(key, (fn = (text ? coercing : plain).compile(JSON.parse(source))))
    // ajv's coercion writes into its argument's parent: a copy goes in.
    return fn(structuredClone(text ? (typeof value === 'object' ? value : String(value)) : value))
  }
}

/** The message of a 400: the standard shape's `message`, the others' `error`, OAuth's `error_description`. */
async function messageOf(res: Response): Promise<string> {
  const text = await res.clone().text()
  try {
    const body = JSON.parse(text)
    return [body.message, body.error_description, body.error].filter((v) => typeof v === 'string').join(' | ')
  } catch {
    return text.slice(0, 300)
  }
}

describe.each(runtimes)('requests generated from the served document through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('valid ones are taken, broken ones refused naming the field, every answer the document', async () => {
    const started = Date.now()
    const doc = (await (await rt.fetch('/__sandbox/openapi.json')).json()) as Doc
    const check = checker(doc)
    const allows = validators(doc)
    const data = new SchemaData(doc)
    const prefix = `gr-${runtime.name.split(' ')[0].replace(/\W/g, '')}`

    // What a tester learns by following the document's links and security schemes: a portal
    // token (portalVerify), a registered OAuth client (oauthRegister) for the OAuth endpoints.
    const portalSandbox = `${prefix}-portal`
    await rt.fetch('/api/portal/auth/magic-link', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sandbox-id': portalSandbox },
      body: JSON.stringify({ email: 'owner@acme.test' }),
    })
    const outbox = await (
      await rt.fetch('/__sandbox/outbox?kind=magic-link', { headers: { 'x-sandbox-id': portalSandbox } })
    ).json()
    const verified = await (
      await rt.fetch('/api/portal/auth/verify', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sandbox-id': portalSandbox },
        body: JSON.stringify({ token: outbox.outbox[0].token }),
      })
    ).json()
    const portalToken: string = verified.data.token
    const clients = new Map<string, { client_id: string; redirect_uri: string }>()
    const clientFor = async (sandbox: string) => {
      let client = clients.get(sandbox)
      if (!client) {
        const redirect_uri = 'http://127.0.0.1:8123/callback'
        const res = await rt.fetch('/oauth/register', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-sandbox-id': sandbox },
          body: JSON.stringify({ redirect_uris: [redirect_uri] }),
        })
        expect(res.status).toBe(201)
        client = { client_id: (await res.json()).client_id, redirect_uri }
        clients.set(sandbox, client)
      }
      return client
    }

    // Bodies a tester takes from another answer, as the document's links say (a snapshot, a repro bundle).
    const bodyFrom = new Map<string, string>()
    for (const [template, item] of Object.entries(doc.paths))
      for (const op of Object.values(item) as Op[])
        for (const answer of Object.values(op.responses ?? {}) as Op[])
          for (const link of Object.values(answer.links ?? {}) as Op[])
            if (link.requestBody === '$response.body' && !template.includes('{'))
              bodyFrom.set(link.operationId, template)

    const problems: string[] = []
    const counts = {
      operations: 0,
      requests: 0,
      valid: 0,
      invalid: 0,
      'no token': 0,
      'bad token': 0,
      rules: new Set<string>(),
    }
    let run = 0

    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item) as [string, Op][]) {
        counts.operations++
        const id: string = op.operationId
        const sandbox = op['x-sandbox-portal-role'] ? portalSandbox : `${prefix}-${id}`
        const params: Op[] = (op.parameters ?? []).map((p: Op) => data.resolve(p))
        const body = op.requestBody?.content as Record<string, { schema: object }> | undefined
        const [mediaType, media] = body ? Object.entries(body)[0] : []
        const secured =
          (op.security ?? []).length > 0 && !(op.security ?? []).some((s: object) => !Object.keys(s).length)
        const token = op['x-sandbox-portal-role'] ? portalToken : ADMIN_TOKEN
        // OAuth's endpoints answer for a client registered in their sandbox: the tester registers one first.
        const oauth = /^\/oauth\//.test(template) ? await clientFor(sandbox) : undefined

        // Valid parts, each from its schema; an optional header (the scenario's, whose valid
        // values switch faults on: its documented 429s and 5xx) is left out.
        const sample = <T>(arb: fc.Arbitrary<T>, n: number) => fc.sample(arb, { numRuns: n, seed: SEED + run++ })
        const valids: Parts[] = []
        for (let i = 0; i < VALID_PER_OPERATION * 4 && valids.length < VALID_PER_OPERATION; i++) {
          const parts: Parts = { path: {}, query: {}, headers: { 'x-sandbox-id': sandbox } }
          let ok = true
          for (const p of params) {
            if (p.in === 'header') continue
            if (!p.required && sample(fc.boolean(), 1)[0]) continue
            const [value] = sample(data.valid(p.schema), 1)
            if (p.in === 'path' && (String(value) === '' || String(value) === '.' || String(value) === '..')) ok = false
            if (!allows(p.schema, value, true)) ok = false
            ;(p.in === 'path' ? parts.path : parts.query)[p.name] = value
          }
          const linked = bodyFrom.get(id)
          if (media && linked) {
            const res = await rt.fetch(linked, { headers: { 'x-sandbox-id': sandbox } })
            parts.body = await res.json()
          } else if (media) {
            let [value] = sample(data.valid(media.schema), 1) as [any]
            if (oauth && value && typeof value === 'object') value = withClient(value, oauth)
            if (!allows(media.schema, value)) ok = false
            parts.body = value
          }
          if (oauth && template === '/oauth/authorize' && method === 'get') parts.query = withClient(parts.query, oauth)
          if (ok) valids.push(parts)
        }
        if (!valids.length) {
          problems.push(`${id}: no valid request could be made from its document`)
          continue
        }

        const sends: Sent[] = []
        const request = (parts: Parts, kind: Sent['kind'], what: string, field?: string, auth = token): Sent => {
          let path = template
          for (const [name, value] of Object.entries(parts.path))
            path = path.replace(`{${name}}`, encodeURIComponent(String(value)))
          const query = new URLSearchParams()
          for (const [name, value] of Object.entries(parts.query))
            for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one))
          const headers: Record<string, string> = { ...parts.headers }
          if (secured && auth) headers.authorization = `Bearer ${auth}`
          const init: Sent['init'] = { method: method.toUpperCase(), headers, redirect: 'manual' }
          if (parts.body !== undefined && mediaType) {
            if (mediaType === 'multipart/form-data') {
              const form = new FormData()
              for (const [i] of ((parts.body as any).file ?? []).entries())
                form.append('file', new Blob([PNG], { type: 'image/png' }), `photo-${i}.png`)
              init.body = form
            } else if (mediaType === 'application/x-www-form-urlencoded') {
              headers['content-type'] = mediaType
              init.body = new URLSearchParams(
                Object.entries(parts.body as object).map(([k, v]) => [k, String(v)]),
              ).toString()
            } else {
              headers['content-type'] = mediaType
              init.body = JSON.stringify(parts.body)
            }
          }
          return { kind, what, field, path: query.size ? `${path}?${query}` : path, init }
        }

        for (const [i, parts] of valids.entries()) sends.push(request(parts, 'valid', `valid #${i}`))
        if (secured) {
          sends.push(request(valids[0], 'no token', 'without a token', undefined, ''))
          sends.push(request(valids[0], 'bad token', 'with a bad token', undefined, 'atk_not_a_token'))
        }

        // One broken request per rule: a parameter, a header, the body.
        const base = valids[0]
        for (const p of params) {
          const where = p.in as 'path' | 'query' | 'header'
          const value = where === 'header' ? base.headers[p.name] : (where === 'path' ? base.path : base.query)[p.name]
          const broken = data.violations(p.schema, value, true)
          if (p.required && where !== 'path') broken.push({ path: [], value: undefined, rule: 'required' })
          for (const b of broken) {
            if (b.value !== undefined && allows(p.schema, b.value, true)) continue
            if (b.value === undefined && !p.required) continue
            if (
              where === 'path' &&
              (b.value === undefined || /^\.{0,2}$/.test(String(b.value)) || String(b.value).includes('/'))
            )
              continue
            // An array's item is sent as the array with that item.
            const text = Array.isArray(b.value) ? b.value : b.value === undefined ? undefined : String(b.value)
            const parts: Parts = {
              path: { ...base.path },
              query: { ...base.query },
              headers: { ...base.headers },
              body: base.body,
            }
            if (where === 'header') {
              if (text === undefined) delete parts.headers[p.name]
              else parts.headers[p.name] = String(text)
            } else if (text === undefined) delete parts[where][p.name]
            else parts[where][p.name] = text
            counts.rules.add(b.rule)
            sends.push(
              request(
                parts,
                'invalid',
                `${where} ${p.name} breaks ${b.rule} (${JSON.stringify(text)?.slice(0, 60)})`,
                p.name,
              ),
            )
          }
        }
        if (media && mediaType !== 'multipart/form-data') {
          for (const b of data.violations(media.schema, base.body, mediaType === 'application/x-www-form-urlencoded')) {
            if (allows(media.schema, b.value)) continue
            const names = b.path.filter((k) => !/^\d+$/.test(k))
            counts.rules.add(b.rule)
            const sent = request(
              { ...base, body: b.value ?? {} },
              'invalid',
              `body ${b.path.join('.') || '(whole)'} breaks ${b.rule}`,
              names.at(-1) ?? 'body',
            )
            if (b.rule === 'required' && names.length > 1) sent.parent = names.at(-2)
            sends.push(sent)
          }
        }
        if (media && mediaType === 'multipart/form-data')
          sends.push(request({ ...base, body: { file: [] } }, 'invalid', 'body file breaks minItems', 'file'))

        for (const sent of sends) {
          const res = await rt.fetch(sent.path, sent.init)
          counts.requests++
          counts[sent.kind]++
          const what = `${id} ${sent.init.method} ${sent.path.slice(0, 120)} (${sent.what})`
          if (res.status >= 500) problems.push(`${what}: ${res.status} ${(await messageOf(res)).slice(0, 200)}`)
          else if (sent.kind === 'valid') {
            if (res.status === 400 || res.status === 415 || res.status === 413) {
              const message = await messageOf(res)
              if (!statedRule(op, res.status, message))
                problems.push(`${what}: refused ${res.status}: ${message.slice(0, 200)}`)
            }
          } else if (sent.kind === 'invalid') {
            const refusal = await refusalOf(res)
            if (!refusal) problems.push(`${what}: not refused (${res.status})`)
            else if (!refusal.includes(sent.field!) && !(sent.parent && refusal.includes(sent.parent)))
              problems.push(`${what}: refused without naming ${sent.field}: ${refusal.slice(0, 200)}`)
          } else if (res.status !== 401) problems.push(`${what}: ${res.status}, not 401`)
          const problem = await check(op, what, res)
          if (problem) problems.push(problem)
        }
      }
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    const line = `${runtime.name}: ${counts.operations} operations, ${counts.requests} requests (${counts.valid} valid, ${counts.invalid} invalid over ${counts.rules.size} kinds of rule, ${counts['no token']} without a token, ${counts['bad token']} with a bad token) in ${seconds} s; ${problems.length} problems`
    console.log(`generated requests: ${line}`)
    // Every problem, for a reader of a failing run (the assertion shows the first ones).
    mkdirSync('.tmp', { recursive: true })
    writeFileSync(`.tmp/generated-requests-${prefix}.txt`, [line, ...problems].join('\n') + '\n')
    expect(problems.slice(0, 60)).toEqual([])
    expect(counts.operations).toBeGreaterThan(90)
  }, 240_000)
})

/** A client's own values where the OAuth endpoints need them: the one registered, its redirect URI. */
function withClient(value: Record<string, unknown>, client: { client_id: string; redirect_uri: string }) {
  const out = { ...value, client_id: client.client_id }
  if ('redirect_uri' in out) out.redirect_uri = client.redirect_uri
  return out
}

/**
 * A valid request may still meet a rule of state the document states for its 400 (a cross-field
 * rule such as startDate after endDate, an unknown OAuth client): the message's field is named
 * in the operation's 400. OAuth's state errors (invalid_grant, invalid_scope…) are not its shape.
 */
function statedRule(op: Op, status: number, message: string): boolean {
  if (status !== 400) return false
  if (/\| (invalid_grant|invalid_target|unauthorized_client|unsupported_token_type)\b/.test(message)) return true
  const [, field, rule] = /^([\w.-]+): ([^;|]+)/.exec(message) ?? []
  const stated: string = op.responses?.['400']?.description ?? ''
  return field !== undefined && (stated.includes(field) || stated.includes(rule.trim()))
}

/** A refusal's words: a 400's message, or OAuth's error sent back to the client in a redirect (RFC 6749 §4.1.2.1). */
async function refusalOf(res: Response): Promise<string | undefined> {
  if (res.status === 400) return messageOf(res)
  if (res.status === 302 || res.status === 303) {
    const location = new URL(res.headers.get('location') ?? '', 'http://x')
    const error = location.searchParams.get('error')
    if (error) return `${location.searchParams.get('error_description') ?? ''} | ${error}`
  }
  return undefined
}
