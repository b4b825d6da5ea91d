import type * as z from 'zod'
import type { RouteDef } from '../route/route.js'
import { type CollectionName, collectionNames } from '../store/fixtures.js'
import { rowSchemas } from '../store/world.js'
import { deeperThan, MAX_JSON_DEPTH } from '../http/json-depth.js'

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

/** The list of records in a list answer: the first list of objects, breadth first (a loop, however big or deep). */
export function firstList(body: unknown): Row[] | undefined {
  const queue: unknown[] = [body]
  for (let i = 0; i < queue.length; i++) {
    const value = queue[i]
    if (Array.isArray(value)) {
      if (value.length && value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) return value as Row[]
    } else if (value && typeof value === 'object') {
      for (const v of Object.values(value)) queue.push(v)
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
    const leftOut = new Set(report.leftOut)
    for (const record of records) {
      // A record nested past the bound is dropped whole: writing it again would overflow.
      if (deeperThan(record)) {
        report.dropped.push({
          id: scalar(record.id),
          reason: `(record): must nest at most ${MAX_JSON_DEPTH} levels of lists and objects`,
        })
        continue
      }
      const row: Row = {}
      for (const [key, value] of Object.entries(record)) {
        // Own keys only: `constructor`, `toString` or `__proto__` are no field of any collection.
        if (!own(shape, key) || CREDENTIAL.test(key)) {
          if (!leftOut.has(key)) {
            leftOut.add(key)
            report.leftOut.push(key)
          }
          continue
        }
        row[key] = this.options.redactEmails ? redactEmails(value) : value
      }
      if (own(shape, 'clientId')) row.clientId = this.options.clientId
      const template = this.options.templates[name] ?? {}
      const filled = Object.keys(shape).filter(
        (k) => row[k] === undefined && !shape[k].safeParse(undefined).success && own(template, k),
      )
      for (const k of filled) row[k] = template[k]
      if (filled.length) report.filled.push({ id: scalar(row.id), fields: filled })
      const checked = rowSchemas[name].safeParse(row)
      if (!checked.success) {
        const issue = checked.error.issues[0]
        report.dropped.push({ id: scalar(row.id), reason: `${issue.path.join('.') || '(record)'}: ${issue.message}` })
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

function shapeOf(name: CollectionName): Record<string, z.ZodType> {
  return rowSchemas[name].shape
}

const own = (o: object, key: string) => Object.hasOwn(o, key)
/** An id as the report names it: a list or object is no id, and the report holds no copy of it. */
const scalar = (id: unknown) => (id !== null && typeof id === 'object' ? null : id)

function redactEmails(value: unknown): unknown {
  if (typeof value === 'string') return EMAIL.test(value) ? 'redacted@example.test' : value
  if (Array.isArray(value)) return value.map(redactEmails)
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactEmails(v)]))
  return value
}
