import type * as z from 'zod'
import type { RouteDef } from '../app/route.js'
import { type CollectionName, collectionNames, notificationRowSchema } from '../store/fixtures.js'
import { tableSchemas } from '../store/collections.js'

type Row = Record<string, unknown>

/** What became of one collection's records (`record-report.json`). */
export interface CollectionReport {
  kept: number
  /** Records left out, with the rule they broke. */
  dropped: { id: unknown; reason: string }[]
  /** Required fields the upstream lacked, filled from a seeded record. */
  filled: { id: unknown; fields: string[] }[]
  /** Fields of the upstream that the collection lacks, left out. */
  leftOut: string[]
}

export interface Recording {
  rows: Partial<Record<CollectionName, Row[]>>
  report: Record<string, CollectionReport>
}

/** Credentials are never written: a field so named is left out, whatever its collection. */
const CREDENTIAL = /token|password|secret|apikey|api_key/i
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export interface RecordOptions {
  /** The client every record is given to: the demo admin's, so the demo accounts see them. */
  clientId: string
  /** A seeded record per collection: where required fields the upstream lacks come from. */
  templates: Partial<Record<CollectionName, Row>>
  redactEmails?: boolean
}

/** The list of records in a list answer: the first list of objects, breadth first. */
export function firstList(body: unknown): Row[] | undefined {
  const queue: unknown[] = [body]
  while (queue.length) {
    const value = queue.shift()
    if (Array.isArray(value)) {
      if (value.length && value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) return value as Row[]
    } else if (value && typeof value === 'object') {
      queue.push(...Object.values(value))
    }
  }
  return undefined
}

/**
 * Turns list answers into fixtures: per collection its records, each valid for the collection
 * (fields it lacks left out, required ones the upstream lacks filled from a seeded record, a
 * record with a value it refuses dropped), each given to `clientId`, credentials never kept.
 */
export class Recorder {
  readonly #rows = new Map<CollectionName, Map<string, Row>>()
  readonly #report: Record<string, CollectionReport> = {}

  constructor(readonly options: RecordOptions) {}

  /** The records of one list answer of `route` (a GET that `lists` a collection). */
  add(route: Pick<RouteDef, 'lists'>, body: unknown): void {
    const name = route.lists as CollectionName | undefined
    if (!name || !(collectionNames as string[]).includes(name)) return
    const records = firstList(body)
    if (!records) return
    const report = (this.#report[name] ??= { kept: 0, dropped: [], filled: [], leftOut: [] })
    const kept = this.#rows.get(name) ?? this.#rows.set(name, new Map()).get(name)!
    const shape = shapeOf(name)
    for (const record of records) {
      const row: Row = {}
      for (const [key, value] of Object.entries(record)) {
        if (!(key in shape) || CREDENTIAL.test(key)) {
          if (!report.leftOut.includes(key)) report.leftOut.push(key)
          continue
        }
        row[key] = this.options.redactEmails ? redactEmails(value) : value
      }
      if ('clientId' in shape) row.clientId = this.options.clientId
      const template = this.options.templates[name] ?? {}
      const filled = Object.keys(shape).filter((k) => row[k] === undefined && !shape[k].safeParse(undefined).success && k in template)
      for (const k of filled) row[k] = template[k]
      if (filled.length) report.filled.push({ id: row.id, fields: filled })
      const checked = rowSchema(name).safeParse(row)
      if (!checked.success) {
        const issue = checked.error.issues[0]
        report.dropped.push({ id: row.id, reason: `${issue.path.join('.') || '(record)'}: ${issue.message}` })
        continue
      }
      if (kept.has(String(row.id))) continue
      kept.set(String(row.id), row)
    }
    report.kept = kept.size
  }

  result(): Recording {
    const rows: Recording['rows'] = {}
    for (const [name, byId] of this.#rows) if (byId.size) rows[name] = [...byId.values()]
    return { rows, report: this.#report }
  }
}

function rowSchema(name: CollectionName): z.ZodType {
  return name === 'notifications' ? notificationRowSchema : (tableSchemas as Record<string, z.ZodType>)[name]
}

function shapeOf(name: CollectionName): Record<string, z.ZodType> {
  return (rowSchema(name) as unknown as { shape: Record<string, z.ZodType> }).shape
}

function redactEmails(value: unknown): unknown {
  if (typeof value === 'string') return EMAIL.test(value) ? 'redacted@example.test' : value
  if (Array.isArray(value)) return value.map(redactEmails)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactEmails(v)]))
  return value
}

