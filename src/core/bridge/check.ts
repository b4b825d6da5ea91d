import { documentPath } from './reach.js'
import { Findings, walk } from './schema-walk.js'
import type { Finding, Operation } from './types.js'

export type { Finding, FindingKind, Operation } from './types.js'

type Json = Record<string, any>

/** An answer is not worth more than this many findings: the journal keeps them. */
export const MAX_FINDINGS = 100

/** An answer's findings; `reason` says when there were more than MAX_FINDINGS (the rest not collected). */
export interface Checked {
  findings: Finding[]
  reason?: string
}

/**
 * Checks answers against the sandbox's own OpenAPI document and turns their differences into
 * findings. The walk is the sandbox's own (schema-walk.ts), over the subset of JSON Schema the
 * document uses: a validator library collects every error of a body before it returns, and
 * 45,000 list elements that differ overflow the stack (issue 35). @cfworker/json-schema, which
 * runs in workerd (ajv compiles schemas with `new Function`, which workerd refuses), lends its
 * formats, and check.test.ts holds the walk to its verdicts.
 */
export class Checker {
  constructor(readonly document: Json) {}

  /** The findings for one answer: its status, its media type (`content-type`), its body as text. */
  check(operation: Operation, status: number, mediaType: string | null, body: string | null): Finding[] {
    return this.checkAnswer(operation, status, mediaType, body).findings
  }

  /** The same, with a reason when the walk stopped early (findings cut at MAX_FINDINGS). */
  checkAnswer(operation: Operation, status: number, mediaType: string | null, body: string | null): Checked {
    const only = (finding: Finding): Checked => ({ findings: [finding] })
    const op = ownAt(ownAt(this.document.paths, documentPath(operation.path)), operation.method.toLowerCase())
    if (!op) return only({ kind: 'status', pointer: '', expected: [], actual: status })
    const documented = ownAt(op.responses, String(status))
    if (!documented)
      return only({
        kind: 'status',
        pointer: '',
        expected: Object.keys(op.responses ?? {}).map(Number),
        actual: status,
      })
    const content: Json = documented.content ?? {}
    const empty = body === null || body === ''
    if (empty && Object.keys(content).length === 0) return { findings: [] }
    const type = (mediaType ?? '').split(';')[0].trim().toLowerCase()
    // Own keys only: a content type named `constructor` is none the document lists.
    const media = ownAt(content, type)
    if (!media) return only({ kind: 'media-type', pointer: '', expected: Object.keys(content), actual: type || null })
    const schema = media.schema
    if (!schema || !isJson(type)) return { findings: [] }
    if (empty) return only({ kind: 'type', pointer: '', expected: schema.type ?? 'JSON', actual: 'empty body' })
    let value: unknown
    try {
      value = JSON.parse(body)
    } catch {
      return only({ kind: 'type', pointer: '', expected: schema.type ?? 'JSON', actual: 'not JSON' })
    }
    const out = new Findings(MAX_FINDINGS)
    walk(value, schema, { components: this.document.components }, out)
    return out.cut ? { findings: out.list, reason: out.cut } : { findings: out.list }
  }
}

/** `object[key]` when the object has that key itself, never what Object.prototype lends. */
function ownAt(object: unknown, key: string): Json | undefined {
  return object && typeof object === 'object' && Object.hasOwn(object, key) ? (object as Json)[key] : undefined
}

const isJson = (type: string) => type === 'application/json' || type.endsWith('+json')
