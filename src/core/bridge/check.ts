import { type OutputUnit, Validator } from '@cfworker/json-schema'
import type { RouteDef } from '../app/route.js'
import { documentPath } from './reach.js'

/** What can differ between an upstream's answer and the sandbox's own OpenAPI document. */
export type FindingKind = 'status' | 'media-type' | 'missing' | 'extra' | 'type' | 'enum' | 'format'

/** One difference: `pointer` is a JSON Pointer into the upstream's body ('' for the whole body). */
export interface Finding {
  kind: FindingKind
  pointer: string
  expected?: unknown
  actual?: unknown
}

/** The operation of the route table an answer belongs to. */
export type Operation = Pick<RouteDef, 'method' | 'path'>

type Json = Record<string, any>

/** An answer is not worth more than this many findings: the journal keeps them. */
const MAX_FINDINGS = 100

/**
 * Checks answers against the sandbox's own OpenAPI document with a JSON Schema validator and
 * turns its errors into findings. @cfworker/json-schema, not ajv: ajv compiles schemas with
 * `new Function`, which workerd refuses, and its standalone mode would need every response
 * schema generated at build time; bench/checker.mjs measures both on a 50-row page.
 */
export class Checker {
  readonly #validators = new Map<string, Validator>()

  constructor(readonly document: Json) {}

  /** The findings for one answer: its status, its media type (`content-type`), its body as text. */
  check(operation: Operation, status: number, mediaType: string | null, body: string | null): Finding[] {
    const op = this.document.paths?.[documentPath(operation.path)]?.[operation.method.toLowerCase()]
    if (!op) return [{ kind: 'status', pointer: '', expected: [], actual: status }]
    const documented = op.responses?.[String(status)]
    if (!documented) return [{ kind: 'status', pointer: '', expected: Object.keys(op.responses ?? {}).map(Number), actual: status }]
    const content: Json = documented.content ?? {}
    const empty = body === null || body === ''
    if (empty && Object.keys(content).length === 0) return []
    const type = (mediaType ?? '').split(';')[0].trim().toLowerCase()
    if (!(type in content)) return [{ kind: 'media-type', pointer: '', expected: Object.keys(content), actual: type || null }]
    const schema = content[type]?.schema
    if (!schema || !isJson(type)) return []
    if (empty) return [{ kind: 'type', pointer: '', expected: schema.type ?? 'JSON', actual: 'empty body' }]
    let value: unknown
    try {
      value = JSON.parse(body)
    } catch {
      return [{ kind: 'type', pointer: '', expected: schema.type ?? 'JSON', actual: 'not JSON' }]
    }
    const key = `${operation.method} ${operation.path} ${status} ${type}`
    let validator = this.#validators.get(key)
    if (!validator) {
      validator = new Validator({ ...schema, components: { schemas: this.document.components?.schemas ?? {} } }, '2020-12', false)
      this.#validators.set(key, validator)
    }
    const result = validator.validate(value)
    return result.valid ? [] : findings(result.errors, value, schema, this.document)
  }
}

const isJson = (type: string) => type === 'application/json' || type.endsWith('+json')

/** The validator's errors as findings; list elements that differ alike count once, at the first. */
function findings(errors: OutputUnit[], body: unknown, schema: Json, document: Json): Finding[] {
  const root = { ...schema, components: document.components }
  const out: Finding[] = []
  const seen = new Map<string, { at: number; keyword: string }>()
  for (const error of withinBestBranch(errors)) {
    const finding = translate(error, body, root)
    if (!finding) continue
    const key = `${finding.kind} ${listFree(finding.pointer, body)}`
    const before = seen.get(key)
    // A value with a format and its pattern fails both: the format's name says more.
    if (before?.keyword === 'pattern' && error.keyword === 'format') {
      out[before.at] = { ...finding, pointer: out[before.at].pointer }
      before.keyword = 'format'
    }
    if (before) continue
    seen.set(key, { at: out.length, keyword: error.keyword })
    out.push(finding)
    if (out.length === MAX_FINDINGS) break
  }
  return out
}

/**
 * Under an `anyOf`/`oneOf` that failed every branch, the validator reports each branch's
 * errors; only the branch that came closest (fewest errors) says what differs.
 */
function withinBestBranch(errors: OutputUnit[]): OutputUnit[] {
  let kept = errors
  const branching = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').sort((a, b) => b.keywordLocation.length - a.keywordLocation.length)
  for (const fork of branching) {
    const prefix = `${fork.keywordLocation}/`
    const counts = new Map<string, number>()
    for (const e of kept) {
      if (e.keywordLocation.startsWith(prefix)) {
        const branch = e.keywordLocation.slice(prefix.length).split('/')[0]
        counts.set(branch, (counts.get(branch) ?? 0) + 1)
      }
    }
    const best = [...counts].sort((a, b) => a[1] - b[1])[0]?.[0]
    kept = kept.filter((e) => !e.keywordLocation.startsWith(prefix) || e.keywordLocation.startsWith(`${prefix}${best}/`))
  }
  return kept
}

/** One validator error as a finding, or none for the errors that only summarise others. */
function translate(error: OutputUnit, body: unknown, root: Json): Finding | undefined {
  const pointer = instancePointer(error.instanceLocation)
  const actual = () => at(body, pointer)
  const rule = () => schemaAt(root, error.keywordLocation)
  switch (error.keyword) {
    case 'required': {
      const name = /required property "(.*)"\.$/.exec(error.error)?.[1] ?? ''
      return { kind: 'missing', pointer: `${pointer}/${escape(name)}` }
    }
    case 'false':
      // additionalProperties: false (the document's objects are closed) or items: false.
      return { kind: 'extra', pointer, actual: jsonType(actual()) }
    case 'type':
      return { kind: 'type', pointer, expected: rule(), actual: jsonType(actual()) }
    case 'enum':
      return { kind: 'enum', pointer, expected: rule(), actual: actual() }
    case 'const':
      return { kind: 'enum', pointer, expected: [rule()], actual: actual() }
    case 'format':
      return { kind: 'format', pointer, expected: rule(), actual: actual() }
    case 'pattern':
      return { kind: 'format', pointer, expected: `pattern ${rule()}`, actual: actual() }
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum': case 'multipleOf':
    case 'minLength': case 'maxLength': case 'minItems': case 'maxItems':
      // Bounds the document gives are a value's shape, the nearest of the contract's kinds.
      return { kind: 'format', pointer, expected: `${error.keyword} ${JSON.stringify(rule())}`, actual: actual() }
    default:
      return undefined
  }
}

/** The validator's `#/a/b` (URI-encoded, RFC 6901-escaped) as a plain JSON Pointer. */
function instancePointer(location: string): string {
  return decodeURIComponent(location.replace(/^#/, ''))
}

const escape = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1')
const unescape = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~')

function at(value: unknown, pointer: string): unknown {
  for (const token of pointer.split('/').slice(1)) value = (value as Json | undefined)?.[unescape(token)]
  return value
}

/** The pointer with every list index as `*`, so elements that differ alike share one key. */
function listFree(pointer: string, body: unknown): string {
  let value = body
  return pointer.split('/').slice(1).map((token) => {
    const list = Array.isArray(value)
    value = (value as Json | undefined)?.[unescape(token)]
    return list ? '*' : token
  }).join('/')
}

/** The schema keyword a validator error names, following the `$ref`s it passed through. */
function schemaAt(root: Json, location: string): unknown {
  let node: any = root
  for (const token of location.replace(/^#\/?/, '').split('/').filter(Boolean).map((t) => unescape(decodeURIComponent(t)))) {
    node = node?.[token]
    if (token === '$ref' && typeof node === 'string') node = schemaAt(root, node)
  }
  return node
}

function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}
