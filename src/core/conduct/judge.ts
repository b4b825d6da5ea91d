import { ownText } from '../sandbox/journal.js'
import {
  AMBIGUOUS,
  BACKOFF_MS,
  type Judged,
  MAX_FINDINGS,
  MAX_ROWS,
  REFUSALS,
  ROW_WINDOW_MS,
  type Rule,
  type Seen,
  TOLERANCE_MS,
  TOO_MANY,
} from './rules.js'

/** Bytes of the request a finding names (`METHOD path?query`), at most. */
const WHAT_LIMIT = 256
/** Journal ids a row or a finding names at most. */
const MAX_IDS = 16
/** Writes with effects waiting for a read after an ambiguous answer, at once. */
const MAX_AMBIGUOUS = 16
/** Refresh tokens refused, kept as hashes. */
const MAX_REFUSED = 64

/** The same request sent again after a failure answer: its attempts so far. */
interface Row {
  operationId: string
  effect: boolean
  tag: string
  /** The path's parameter values (ids, at most 64 characters each): a read naming one of them reads the resource. */
  values: string[]
  /** Its caller's hash: a credential is never kept. */
  caller: string
  /** Real arrival of its first attempt, and the end of its last answer (ms). */
  first: number
  end: number
  status: number
  /** Not before this (ms) when the last answer sent `Retry-After`; else 0. */
  until: number
  attempts: number
  ids: number[]
  signIns: number
  writes: number
  /** A read of its resource by its caller since its last answer. */
  read: boolean
  found: Partial<Record<Rule, Judged>>
}

/** What the world counted on every request, before and while its rows are judged. */
export interface Counts {
  signIns: number
  writes: number
}

/**
 * The rows of attempts of one world and the rules they break (docs/conduct.md), made on its first
 * failure answer: loaded on first use, so a page's entry carries only the coverage (conduct.ts).
 * O(1) per request; memory bounded by MAX_ROWS, MAX_FINDINGS and MAX_AMBIGUOUS.
 */
export class Judge {
  constructor(private readonly counts: Counts) {}

  #rows = new Map<string, Row>()
  /** Rows open per operation: a success of another one skips the rows at once. */
  #open = new Map<string, number>()
  #findings: Judged[] = []
  #ambiguous: Row[] = []
  #refused = new Map<string, number>()

  clear(): void {
    this.#rows.clear()
    this.#open.clear()
    this.#findings = []
    this.#ambiguous = []
    this.#refused.clear()
  }

  /** The rules broken, oldest first, as judged (their messages are written by messages.ts `findingOf`). */
  get findings(): readonly Judged[] {
    return this.#findings
  }

  /** Rows of attempts followed now (at most MAX_ROWS). */
  get rows(): number {
    return this.#rows.size
  }

  /** Judges one request; answers the rules it broke (its journal entry is marked with them), or none. */
  seen(s: Seen): Rule[] | undefined {
    const { route, status } = s
    const failed = status === 0 || status >= 400
    let marks: Rule[] | undefined
    if (route.id === 'oauthToken' && s.body) marks = this.#refresh(s)
    if (route.method === 'GET' && this.#ambiguous.length) this.#reads(s)
    // A success of an operation with no row open ends none: nothing to hash.
    if (!failed && !this.#open.has(route.id)) return marks
    const caller = hash(callerOf(s))
    const base = `${route.method} ${caller}${hash(s.path)}${hash(s.search)}`
    const key = base + bodyHash(s.body)
    // A failure answered before the body was read (a 429 at the gateway, a 401) kept no body: the same request.
    let row = this.#rows.get(key)
    if (row) this.#drop(key, row)
    else if (s.body && (row = this.#rows.get(base + UNREAD))) this.#drop(base + UNREAD, row)
    const retry =
      row !== undefined &&
      s.at - row.end <= ROW_WINDOW_MS &&
      !(REFUSALS.has(row.status) && row.writes !== this.counts.writes)
        ? row
        : undefined
    if (retry && !marks) marks = this.#judge(retry, s)
    if (!failed) return marks
    const r: Row = retry ?? {
      operationId: route.id,
      effect: route.effect === true,
      tag: route.tag,
      // Copied: a short id cut from a long URL would hold the whole URL.
      values: Object.values(s.params)
        .filter((v) => v.length <= 64)
        .map((v) => ownText(v, 256)),
      caller,
      first: s.at,
      end: 0,
      status: 0,
      until: 0,
      attempts: 0,
      ids: [],
      signIns: 0,
      writes: 0,
      read: false,
      found: {},
    }
    r.attempts++
    if (r.ids.length < MAX_IDS) r.ids.push(s.id)
    r.end = s.at + s.durationMs
    r.status = status
    r.until = retryAfter(s.headers['retry-after'], r.end)
    r.signIns = this.counts.signIns
    r.writes = this.counts.writes
    r.read = false
    if (r.effect && AMBIGUOUS.has(status) && !this.#ambiguous.includes(r)) {
      this.#ambiguous.push(r)
      if (this.#ambiguous.length > MAX_AMBIGUOUS) this.#ambiguous.shift()
    }
    this.#rows.set(key, r)
    this.#open.set(r.operationId, (this.#open.get(r.operationId) ?? 0) + 1)
    if (this.#rows.size > MAX_ROWS) {
      const [oldest, row] = this.#rows.entries().next().value!
      this.#drop(oldest, row)
    }
    return marks
  }

  #drop(key: string, row: Row): void {
    this.#rows.delete(key)
    const n = this.#open.get(row.operationId)! - 1
    if (n > 0) this.#open.set(row.operationId, n)
    else this.#open.delete(row.operationId)
  }

  /** An attempt after a failure answer in its row: which rules it breaks. */
  #judge(row: Row, s: Seen): Rule[] | undefined {
    const n = row.attempts + 1
    const p = row.status
    const marks: Rule[] = []
    const find = (rule: Rule, facts?: Pick<Judged, 'waited' | 'asked' | 'retryAfter'>) => {
      marks.push(rule)
      const known = row.found[rule]
      if (known) {
        if (known.requests.length < MAX_IDS) known.requests.push(s.id)
        return
      }
      const requests = row.ids.length < MAX_IDS ? [...row.ids, s.id] : [...row.ids.slice(0, MAX_IDS - 1), s.id]
      // Cut and copied: a finding outlives the request, whose long URL it must not hold.
      const what = ownText(`${s.route.method} ${s.path}${s.search}`, WHAT_LIMIT)
      this.#add(
        (row.found[rule] = { rule, operationId: row.operationId, requests, what, attempt: n, after: p, ...facts }),
      )
    }
    if (REFUSALS.has(p)) find('retried-refusal')
    else if (p === 401) {
      if (row.signIns === this.counts.signIns) find('looped-on-401')
    } else if (row.effect && AMBIGUOUS.has(p)) {
      // After a read, a resend is the app's decision on what it read: not an automatic retry.
      if (!row.read) find('retried-write-blindly')
    } else {
      const asked = row.until ? row.until - row.end : BACKOFF_MS[Math.min(n - 2, BACKOFF_MS.length - 1)]
      const from = row.until ? row.end : row.first
      if (s.at < from + asked - TOLERANCE_MS)
        find('retried-too-soon', { waited: s.at - from, asked, retryAfter: row.until > 0 })
    }
    if (n >= TOO_MANY) find('too-many-attempts')
    return marks.length ? marks : undefined
  }

  #add(j: Judged): void {
    this.#findings.push(j)
    if (this.#findings.length > MAX_FINDINGS) this.#findings.shift()
  }

  /** A GET by the caller of a write waiting for a read: of its area (tag) or naming its resource. */
  #reads(s: Seen): void {
    if (s.status >= 500 || s.status === 0) return
    const caller = hash(callerOf(s))
    const path = s.path + s.search
    this.#ambiguous = this.#ambiguous.filter((row) => {
      if (row.caller !== caller) return true
      if (row.tag !== s.route.tag && !row.values.some((v) => v && path.includes(v))) return true
      row.read = true
      return false
    })
  }

  /** `POST /oauth/token` with a refresh token: one refused before, presented again, is a finding. */
  #refresh(s: Seen): Rule[] | undefined {
    const form = new URLSearchParams(decoder.decode(s.body))
    const token = form.get('refresh_token')
    if (form.get('grant_type') !== 'refresh_token' || !token) return undefined
    const key = hash(token)
    const refused = this.#refused.get(key)
    if (refused !== undefined) {
      this.#add({
        rule: 'reused-refresh-token',
        operationId: s.route.id,
        requests: [refused, s.id],
        what: `${s.route.method} ${s.path}`.slice(0, WHAT_LIMIT),
        attempt: 2,
        after: 400,
      })
      return ['reused-refresh-token']
    }
    // Refused: invalid_grant (400), or the client refused with it (401).
    if (s.status === 400 || s.status === 401) {
      this.#refused.set(key, s.id)
      if (this.#refused.size > MAX_REFUSED) this.#refused.delete(this.#refused.keys().next().value!)
    }
    return undefined
  }
}

const decoder = new TextDecoder()

/** The caller: its credential as sent, else its address. */
function callerOf(s: Seen): string {
  return s.request.headers.get('authorization') ?? `address:${s.clientAddress ?? ''}`
}

/** When `Retry-After` (seconds, or an HTTP date) allows the next attempt, or 0 when none was sent. */
function retryAfter(value: string | undefined, end: number): number {
  if (value === undefined) return 0
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return end + seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? 0 : date
}

/** FNV-1a, 32 bits, in base 36: keys stay short whatever a path, a query or a token holds. */
function hash(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(36) + '.'
}

/** The key's body part of a request whose body was not read. */
const UNREAD = '-'

function bodyHash(body: Uint8Array | undefined): string {
  if (!body) return UNREAD
  let h = 0x811c9dc5
  for (let i = 0; i < body.length; i++) {
    h ^= body[i]
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(36) + ':' + body.length
}
