import { HttpError } from '../http/reply.js'
import type { Override } from './override.js'

/** Overrides one sandbox holds at most. */
export const OVERRIDE_LIMIT = 500
/** Bytes of overrides (as JSON) one world holds at most, and all worlds of an app together (docs/bounds.md): 200 worlds of 500 overrides of 1 MB each were possible. */
export const OVERRIDES_MAX_BYTES = 4 * 1_048_576
export const OVERRIDES_APP_BYTES = 32 * 1_048_576

/** The bytes the overrides of every world of one app hold. */
export class OverridesBudget {
  used = 0
  constructor(readonly max = OVERRIDES_APP_BYTES) {}
}

const encoder = new TextEncoder()
const bytesOf = (list: readonly Override[]) => encoder.encode(JSON.stringify(list)).byteLength

/** What an override looks at in a request; the body is read only when an override asks for it. */
export interface Asked {
  params: Record<string, string>
  search: string
  headers: Headers
  body(): Promise<unknown>
}

/**
 * One world's overrides, indexed by operation: a request looks only at the overrides of its
 * own route, so a hundred others cost it one map lookup (the bench's overrides case).
 */
/** One route's overrides, highest priority and newest first, and whether any answers before auth or after it. */
export class RouteOverrides {
  readonly anonymous: boolean
  readonly signedIn: boolean

  constructor(readonly list: Override[]) {
    this.anonymous = list.some((o) => o.match.anonymous)
    this.signedIn = list.some((o) => !o.match.anonymous)
  }

  /**
   * The override that answers this request, counted as used, or none. Higher priority first,
   * then the newest; one whose window does not hold `now` or whose `times` ran out steps aside.
   */
  async find(anonymousOnly: boolean, asked: Asked, now: number): Promise<Override | undefined> {
    let body: unknown
    let bodyRead = false
    for (const o of this.list) {
      if (o.match.anonymous !== anonymousOnly) continue
      if (o.times !== null && o.used >= o.times) continue
      if ((o.from !== null && now < Date.parse(o.from)) || (o.until !== null && now >= Date.parse(o.until))) continue
      if (o.match.params && !Object.entries(o.match.params).every(([k, v]) => asked.params[k] === v)) continue
      if (o.match.query && !queryHolds(o.match.query, asked.search)) continue
      if (o.match.headers && !Object.entries(o.match.headers).every(([k, v]) => asked.headers.get(k) === v)) continue
      if (o.match.body !== null) {
        if (!bodyRead) {
          bodyRead = true
          body = await asked.body().catch(() => undefined)
        }
        if (!containsJson(body, o.match.body)) continue
      }
      o.used++
      return o
    }
    return undefined
  }
}

export class Overrides {
  /** Bumped by every change, a use included: storage writes the list again only then. */
  version = 0
  #byOperation = new Map<string, RouteOverrides>()
  #all: Override[] = []
  #seq = 0
  /** What `#all` holds as JSON, counted in the app's budget. */
  #bytes = 0

  constructor(readonly budget = new OverridesBudget()) {}

  get size(): number {
    return this.#all.length
  }

  /** Newest last (the order they were added). */
  list(): Override[] {
    return this.#all
  }

  /** Adds an accepted override, numbering it (`ovr_<n>`) only now: a refusal takes no id. */
  add(accepted: Override): Override {
    if (this.#all.length >= OVERRIDE_LIMIT)
      throw new HttpError(
        409,
        `overrides: a sandbox holds at most ${OVERRIDE_LIMIT}; DELETE /__sandbox/overrides removes them`,
      )
    const seq = this.#seq + 1
    const override = { ...accepted, id: `ovr_${seq}`, seq }
    const next = [...this.#all, override]
    this.#hold(next, this.fits(next))
    this.#seq = seq
    this.#index()
    return override
  }

  /** A 413 naming the bound when `list` in place of this world's overrides would pass its bytes or the app's. */
  fits(list: readonly Override[], field = 'overrides'): number {
    const bytes = bytesOf(list)
    const over =
      bytes > OVERRIDES_MAX_BYTES
        ? `a world holds at most ${OVERRIDES_MAX_BYTES}`
        : this.budget.used - this.#bytes + bytes > this.budget.max
          ? `all worlds together hold at most ${this.budget.max}`
          : ''
    if (over) throw new HttpError(413, `${field}: ${over} bytes of overrides as JSON; these are ${bytes}`)
    return bytes
  }

  /** Takes `list` as the world's overrides and its bytes into the app's budget. */
  #hold(list: Override[], bytes = bytesOf(list)): void {
    this.budget.used += bytes - this.#bytes
    this.#bytes = bytes
    this.#all = list
  }

  /** Replaces the one with the same id (an edit keeps its place in the list). */
  replace(override: Override): boolean {
    const at = this.#all.findIndex((o) => o.id === override.id)
    if (at < 0) return false
    const next = this.#all.map((o, i) => (i === at ? override : o))
    this.#hold(next, this.fits(next))
    this.#seq = Math.max(this.#seq, override.seq)
    this.#index()
    return true
  }

  get(id: string): Override | undefined {
    return this.#all.find((o) => o.id === id)
  }

  remove(id: string): boolean {
    const before = this.#all.length
    this.#hold(this.#all.filter((o) => o.id !== id))
    this.#index()
    return this.#all.length < before
  }

  clear(): void {
    this.version++
    this.#hold([])
    this.#byOperation = new Map()
  }

  /** As in a new world (a reset): none, numbered from `ovr_1` again. */
  reset(): void {
    this.clear()
    this.#seq = 0
  }

  /** Puts a stored list back (snapshot, storage); it was checked when it was stored (`fits` before a restore). */
  load(list: readonly Override[]): void {
    this.#hold(list.map((o) => ({ ...o })))
    this.#seq = list.reduce((m, o) => Math.max(m, o.seq), 0)
    this.#index()
  }

  /** The overrides of one operation, or none: a request looks at these only. */
  of(operation: string): RouteOverrides | undefined {
    return this.#byOperation.get(operation)
  }

  #index(): void {
    this.version++
    const lists = new Map<string, Override[]>()
    for (const o of this.#all) {
      let list = lists.get(o.operation)
      if (!list) lists.set(o.operation, (list = []))
      list.push(o)
    }
    this.#byOperation = new Map(
      [...lists].map(([operation, list]) => [
        operation,
        new RouteOverrides(list.sort((a, b) => b.priority - a.priority || b.seq - a.seq)),
      ]),
    )
  }
}

function queryHolds(want: Record<string, string | string[]>, search: string): boolean {
  const params = new URLSearchParams(search)
  return Object.entries(want).every(([k, v]) => {
    const got = params.getAll(k)
    return Array.isArray(v) ? v.every((x) => got.includes(x)) : got.includes(v)
  })
}

/** Whether `actual` holds everything `expected` says: objects by their keys, arrays element by element, the rest equal. */
export function containsJson(actual: unknown, expected: unknown, depth = 0): boolean {
  if (depth > 64) return false
  if (expected === null || typeof expected !== 'object') return actual === expected
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => containsJson(actual[i], e, depth + 1))
    )
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
  return Object.keys(expected).every(
    (k) =>
      Object.hasOwn(actual, k) &&
      containsJson((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], depth + 1),
  )
}
