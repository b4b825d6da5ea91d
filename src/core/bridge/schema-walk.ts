import { deepCompareStrict, format, ucs2length } from '@cfworker/json-schema'
import type { Finding } from './types.js'

type Json = Record<string, any>

/**
 * The keywords the walk checks, and those it knows to be notes only. The served document uses
 * no other (check.test.ts holds it to this list): an unknown keyword would be passed silently.
 */
export const CHECKED_KEYWORDS = [
  '$ref',
  'type',
  'const',
  'enum',
  'anyOf',
  'oneOf',
  'required',
  'properties',
  'additionalProperties',
  'propertyNames',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]
export const NOTE_KEYWORDS = [
  'description',
  'default',
  'title',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentMediaType',
  '$schema',
  'nullable',
]

/** Past this many schema levels the walk stops: only a schema that refers to itself goes on. */
const MAX_DEPTH = 128

/** Where a value is: its JSON Pointer, and the same with every list index as `*`. */
interface Place {
  pointer: string
  key: string
}

const escape = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1')
const own = (o: object, key: string) => Object.hasOwn(o, key)

/**
 * The findings of one walk, bounded while they are collected: elements of a list that differ
 * alike count once (at the first), and past `max` distinct findings the walk stops and says so.
 */
export class Findings {
  readonly list: Finding[] = []
  readonly #keys: string[] = []
  readonly #seen = new Map<string, number>()
  /** Every difference met, alike ones too: what picks the closest branch of an `anyOf`. */
  errors = 0
  /** Why the walk stopped before the end, if it did. */
  cut: string | undefined

  constructor(readonly max: number) {}

  add(finding: Finding, key: string): void {
    this.errors++
    const id = `${finding.kind} ${key}`
    const at = this.#seen.get(id)
    if (at !== undefined) {
      // A value that breaks its format says more by the format's name than by its pattern.
      const before = this.list[at]
      if (
        finding.kind === 'format' &&
        String(before.expected).startsWith('pattern ') &&
        !String(finding.expected).startsWith('pattern ')
      )
        this.list[at] = { ...finding, pointer: before.pointer }
      return
    }
    if (this.list.length === this.max) {
      this.cut = `more than ${this.max} findings: the first ${this.max} are listed`
      return
    }
    this.#seen.set(id, this.list.length)
    this.list.push(finding)
    this.#keys.push(key)
  }

  /** Another walk's findings (a branch's) as this one's. */
  take(other: Findings): void {
    other.list.forEach((f, i) => this.add(f, other.#keys[i]))
    this.errors += other.errors - other.list.length
    this.cut ||= other.cut
  }
}

/**
 * Walks a parsed body against a JSON Schema (the document's own subset: CHECKED_KEYWORDS) and
 * collects its differences as findings. It recurses along the schema, never deeper than
 * MAX_DEPTH, so a big or deeply nested body cannot overflow the stack; a list is a loop.
 */
export function walk(
  value: unknown,
  schema: unknown,
  root: Json,
  out: Findings,
  place: Place = { pointer: '', key: '' },
  depth = 0,
): void {
  if (schema === true || schema === undefined || out.cut) return
  if (depth > MAX_DEPTH) {
    out.cut = `deeper than ${MAX_DEPTH} schema levels at ${place.pointer}: not checked further`
    return
  }
  if (schema === false) return out.add({ kind: 'extra', pointer: place.pointer, actual: jsonType(value) }, place.key)
  const s = schema as Json
  if (typeof s.$ref === 'string') walk(value, resolve(root, s.$ref), root, out, place, depth + 1)
  const type = jsonType(value)
  if (s.type !== undefined && !typeMatches(s.type, type))
    return out.add({ kind: 'type', pointer: place.pointer, expected: s.type, actual: type }, place.key)
  // A list or object is named by its type: a report holds no copy of the upstream's data, however deep.
  const add = (kind: Finding['kind'], expected: unknown) =>
    out.add(
      { kind, pointer: place.pointer, expected, actual: value !== null && typeof value === 'object' ? type : value },
      place.key,
    )
  if (s.const !== undefined && !deepCompareStrict(value, s.const)) add('enum', [s.const])
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => deepCompareStrict(value, e))) add('enum', s.enum)
  for (const keyword of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(s[keyword])) branches(value, s[keyword], root, out, place, depth)
  if (typeof value === 'string') strings(value, s, add)
  else if (typeof value === 'number') numbers(value, s, add)
  else if (Array.isArray(value)) list(value, s, root, out, place, depth, add)
  else if (value && typeof value === 'object') object(value as Json, s, root, out, place, depth)
}

function strings(value: string, s: Json, add: (kind: Finding['kind'], expected: unknown) => void): void {
  const length = ucs2length(value)
  if (typeof s.minLength === 'number' && length < s.minLength) add('format', `minLength ${s.minLength}`)
  if (typeof s.maxLength === 'number' && length > s.maxLength) add('format', `maxLength ${s.maxLength}`)
  const badFormat = typeof s.format === 'string' && own(format, s.format) && !format[s.format](value)
  if (badFormat) add('format', s.format)
  else if (typeof s.pattern === 'string' && !pattern(s.pattern).test(value)) add('format', `pattern ${s.pattern}`)
}

const patterns = new Map<string, RegExp>()
const pattern = (source: string) => patterns.get(source) ?? patterns.set(source, new RegExp(source, 'u')).get(source)!

function numbers(value: number, s: Json, add: (kind: Finding['kind'], expected: unknown) => void): void {
  if (typeof s.minimum === 'number' && value < s.minimum) add('format', `minimum ${s.minimum}`)
  if (typeof s.maximum === 'number' && value > s.maximum) add('format', `maximum ${s.maximum}`)
  if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
    add('format', `exclusiveMinimum ${s.exclusiveMinimum}`)
  if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
    add('format', `exclusiveMaximum ${s.exclusiveMaximum}`)
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && !Number.isInteger(value / s.multipleOf))
    add('format', `multipleOf ${s.multipleOf}`)
}

function list(
  value: unknown[],
  s: Json,
  root: Json,
  out: Findings,
  place: Place,
  depth: number,
  add: (kind: Finding['kind'], expected: unknown) => void,
): void {
  if (typeof s.minItems === 'number' && value.length < s.minItems) add('format', `minItems ${s.minItems}`)
  if (typeof s.maxItems === 'number' && value.length > s.maxItems) add('format', `maxItems ${s.maxItems}`)
  if (s.items === undefined) return
  for (let i = 0; i < value.length && !out.cut; i++)
    walk(value[i], s.items, root, out, { pointer: `${place.pointer}/${i}`, key: `${place.key}/*` }, depth + 1)
}

function object(value: Json, s: Json, root: Json, out: Findings, place: Place, depth: number): void {
  const child = (name: string): Place => ({
    pointer: `${place.pointer}/${escape(name)}`,
    key: `${place.key}/${escape(name)}`,
  })
  for (const name of Array.isArray(s.required) ? s.required : [])
    if (!own(value, name)) out.add({ kind: 'missing', pointer: child(name).pointer }, child(name).key)
  const properties: Json = s.properties ?? {}
  if (s.propertyNames !== undefined)
    for (const name of Object.keys(value)) walk(name, s.propertyNames, root, out, child(name), depth + 1)
  for (const name of Object.keys(properties))
    if (own(value, name)) walk(value[name], properties[name], root, out, child(name), depth + 1)
  if (s.additionalProperties === undefined || s.additionalProperties === true) return
  for (const name of Object.keys(value)) {
    if (out.cut) return
    if (!own(properties, name)) walk(value[name], s.additionalProperties, root, out, child(name), depth + 1)
  }
}

/** Under an `anyOf`/`oneOf` that no branch meets, only the closest branch (fewest differences) says what differs. */
function branches(value: unknown, options: unknown[], root: Json, out: Findings, place: Place, depth: number): void {
  let best: Findings | undefined
  for (const option of options) {
    const tried = new Findings(out.max)
    walk(value, option, root, tried, place, depth + 1)
    if (tried.errors === 0 && tried.cut === undefined) return
    if (!best || tried.errors < best.errors) best = tried
  }
  if (best) out.take(best)
}

function resolve(root: Json, ref: string): unknown {
  let node: any = root
  for (const token of ref.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    const name = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~')
    node = node && typeof node === 'object' && own(node, name) ? node[name] : undefined
  }
  return node
}

function typeMatches(expected: unknown, actual: string): boolean {
  const one = (t: unknown) => t === actual || (t === 'number' && actual === 'integer')
  return Array.isArray(expected) ? expected.some(one) : one(expected)
}

export function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}
