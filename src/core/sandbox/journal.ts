import type { BodySource } from '../http/reply.js'
import type { BudgetedJournal, JournalBudget } from './journal-budget.js'
import type { Finding } from '../bridge/types.js'
import type { Changes } from '../store/changes.js'

/** A request as the journal keeps it (docs/contract.md: `{id, method, path, status, faults, durationMs, at}`). */
export interface JournalEntry {
  id: number
  method: string
  path: string
  query: string
  status: number
  faults: string[]
  durationMs: number
  at: string
  /** Set on a passed-through answer once it is checked (the bridge): what differs from the document. */
  drift?: Finding[]
  /** What the request changed (absent for a read): docs/contract.md "What a request changed". */
  changes?: Changes
  /** `mcp`: a tool call of the MCP server made this request (docs/agents.md); `tool` names the tool. */
  via?: 'mcp'
  tool?: string
  /** The conduct rules this request broke (docs/conduct.md); absent when none. */
  conduct?: string[]
}

/** One side of an exchange as the journal keeps it: bodies as text, cut past `BODY_LIMIT`. */
export interface Message {
  headers: Record<string, string>
  /** `null` when there was no body, or it was not kept (entries restored from a snapshot). */
  body: string | null
  /** Whether `body` was cut at `BODY_LIMIT` bytes. */
  truncated: boolean
  /** Bytes of the whole body as sent. */
  size: number
  /** The body's bytes as kept, when asked for (`details(false, true)`): a contract carries binary bodies as base64. */
  bytes?: Uint8Array
}

/** What `GET /__sandbox/requests/{id}` answers: the entry, its absolute URL, and both sides. */
export interface JournalDetail extends JournalEntry {
  url: string
  request: Message
  response: Message
}

/** A body as the pipeline saw it: bytes read from the request, the answer's text or bytes, or its source. */
export type BodyInput = string | Uint8Array | BodySource | null | undefined

/**
 * Headers as a runtime has them: a Headers object, a record of lower-case names (the pipeline's
 * own answer), or name/value pairs as received (node:http's `rawHeaders`), which the journal
 * keeps as they are and reads only when asked.
 */
export type HeadersInput = Headers | Record<string, string> | readonly string[]

export interface ExchangeInput {
  /** Scheme, host and port the request was sent to: the URL is this, the path and the query. */
  origin: string
  request: { headers: HeadersInput; body: BodyInput }
  response: { headers: HeadersInput; body: BodyInput }
}

/** docs/contract.md "Bounds and trust": anonymous callers must not grow memory through the journal. */
export const JOURNAL_MAX_ENTRIES = 1000
export const JOURNAL_MAX_BYTES = 8 * 1_048_576
/** Stored paths, queries and header values are cut past this many bytes. */
export const TEXT_LIMIT = 2048
/** Stored bodies are cut past this many bytes (docs/contract.md "The inspector"). */
export const BODY_LIMIT = 65_536
/**
 * Counted for each entry besides its texts: the objects that hold them (the entry, its record,
 * headers and a kept body's buffer), as the heap pays for them. Measured with the full-journals
 * case of `npm run bench -- --only memory` (refused sign-ins): with a smaller figure the budget
 * held far more heap than its bytes in small entries (docs/benchmarks-history.md).
 */
export const ENTRY_OVERHEAD = 700

/**
 * A message as stored: a body kept as the bytes it came in (decoded when asked for), or text;
 * headers as a record or as received pairs (made a record when asked for).
 */
type Kept = Omit<Message, 'body' | 'headers'> & {
  headers: Record<string, string> | readonly string[]
  body: string | Uint8Array | BodySource | null
}

interface Stored {
  entry: JournalEntry
  origin: string
  request: Kept | undefined
  response: Kept | undefined
  bytes: number
  /** Its place in the app's order of entries (the budget drops the lowest first). */
  order: number
}

/**
 * Bounded ring, newest last, in entries and in bytes: oldest out first. Every text it keeps is
 * within TEXT_LIMIT and a string of its own (see `ownText`), so a kept part never holds on to
 * the whole of a long caller string. `add` runs for every request: it copies and counts, and
 * leaves the rest (cutting long texts aside) to `get`.
 */
export class Journal implements BudgetedJournal {
  #entries: Stored[] = []
  #next = 1
  #bytes = 0
  /** The last origin kept: requests of one runtime share it, so it is copied once. */
  #origin = ''

  constructor(
    readonly capacity = JOURNAL_MAX_ENTRIES,
    readonly maxBytes = JOURNAL_MAX_BYTES,
    private readonly onAdd?: (entry: JournalEntry) => void,
    /** The app's bound on all its journals together. */
    private readonly budget?: JournalBudget,
  ) {}

  get oldest(): number {
    return this.#entries[0]?.order ?? Infinity
  }

  /** Drops the oldest entry (the budget asks); answers its bytes. */
  dropOldest(): number {
    const s = this.#entries.shift()
    if (!s) return 0
    this.#bytes -= s.bytes
    return s.bytes
  }

  /** Bytes the journal holds by its own count: texts as UTF-8, plus a fixed overhead per entry. */
  get bytes(): number {
    return this.#bytes
  }

  get size(): number {
    return this.#entries.length
  }

  /** `marks`: a tool call's `via` and `tool` (the MCP server's), the conduct rules broken; other entries keep one shape. */
  add(
    entry: Omit<JournalEntry, 'id'>,
    exchange?: ExchangeInput,
    marks?: Pick<JournalEntry, 'via' | 'tool' | 'conduct'>,
  ): JournalEntry {
    // Field by field, not spread: every entry has one shape.
    const { method, path, query, status, faults, durationMs, at, changes } = entry
    const e: JournalEntry = {
      id: this.#next++,
      method,
      path: ownText(path, TEXT_LIMIT),
      query: ownText(query, TEXT_LIMIT),
      status,
      faults,
      durationMs,
      at,
    }
    if (changes) e.changes = changes
    // A request body is copied (a chunk may be a view of a larger buffer); a response's bytes are
    // the answer's own, often a cached page, kept as they are.
    const [request, requestBytes] = exchange ? message(exchange.request.headers, exchange.request.body, true) : NONE
    const [response, responseBytes] = exchange
      ? message(exchange.response.headers, exchange.response.body, false)
      : NONE
    // The origin alone: the path and the query are the entry's own (a URL would hold them twice).
    let origin = ''
    if (exchange)
      origin = exchange.origin === this.#origin ? this.#origin : (this.#origin = ownText(exchange.origin, 256))
    const bytes = ENTRY_OVERHEAD + entryBytes(e) + utf8Length(origin) + requestBytes + responseBytes
    if (marks) Object.assign(e, marks)
    this.#push({ entry: e, origin, request, response, bytes, order: this.budget?.next() ?? 0 })
    this.onAdd?.(e)
    return e
  }

  list(): JournalEntry[] {
    return this.#entries.map((s) => s.entry)
  }

  /**
   * Takes over another journal's entries as they are kept (the world a replay built, put in
   * place): headers as received, bodies as their bytes and cut where they were cut, numbered anew
   * here; the other is left empty.
   */
  takeFrom(other: Journal): void {
    this.clear()
    for (const s of other.#entries) {
      const entry = { ...s.entry, id: this.#next++ }
      this.#push({ ...s, entry, order: this.budget?.next() ?? 0 })
      this.onAdd?.(entry)
    }
    other.clear()
  }

  /** The oldest entry's id; with none, the id the next one gets. */
  get firstId(): number {
    return this.#entries[0]?.entry.id ?? this.#next
  }

  /** The id the next entry gets. */
  get nextId(): number {
    return this.#next
  }

  /** Entries after `id`, oldest first, without copying the rest (a store's flush asks on every batch). */
  since(id: number): JournalEntry[] {
    let i = this.#entries.length
    while (i > 0 && this.#entries[i - 1].entry.id > id) i--
    const out: JournalEntry[] = []
    for (; i < this.#entries.length; i++) out.push(this.#entries[i].entry)
    return out
  }

  /**
   * An entry with its exchange; entries restored from a snapshot carry no headers or bodies.
   * `shown: false`: a bearer JWT as received, for code that names its caller and never shows it (contracts).
   */
  get(id: number, shown = true, bytes = false): JournalDetail | undefined {
    const s = this.#entries.find((x) => x.entry.id === id)
    if (!s) return undefined
    const request = readable(s.request, bytes)
    return {
      ...s.entry,
      url: s.origin ? s.origin + s.entry.path + s.entry.query : '',
      request: shown ? shownCredentials(request) : request,
      response: readable(s.response, bytes),
    }
  }

  /** Every entry with its exchange, oldest first (the HAR export; a contract asks for the bodies' bytes too). */
  details(shown = true, bytes = false): JournalDetail[] {
    return this.#entries.map((s) => this.get(s.entry.id, shown, bytes)!)
  }

  clear(): void {
    const before = this.#bytes
    this.#entries = []
    this.#bytes = 0
    this.budget?.changed(this, -before)
  }

  load(entries: JournalEntry[]): void {
    this.clear()
    for (const e of entries) {
      const entry = { ...e, path: cutText(e.path, TEXT_LIMIT), query: cutText(e.query, TEXT_LIMIT) }
      this.#push({
        entry,
        origin: '',
        request: undefined,
        response: undefined,
        bytes: ENTRY_OVERHEAD + entryBytes(entry),
        order: this.budget?.next() ?? 0,
      })
    }
    this.#next = entries.reduce((max, e) => Math.max(max, e.id), 0) + 1
  }

  #push(s: Stored): void {
    const before = this.#bytes
    this.#entries.push(s)
    this.#bytes += s.bytes
    let drop = 0
    let bytes = this.#bytes
    while (this.#entries.length - drop > this.capacity || (bytes > this.maxBytes && this.#entries.length - drop > 1))
      bytes -= this.#entries[drop++].bytes
    if (drop) {
      this.#entries.splice(0, drop)
      this.#bytes = bytes
    }
    this.budget?.changed(this, this.#bytes - before)
  }
}

const NONE: [undefined, number] = [undefined, 0]

/**
 * Headers as shown (an entry's detail, the HAR, the panel): a bearer JWT, the agent and portal
 * tokens (docs/agents.md), is `Bearer <redacted>`; the sandbox's opaque session tokens stay, for
 * Copy as curl. Applied when read, so the bytes counted are the same either way.
 */
export function shownCredentials(m: Message): Message {
  if (/^bearer\s+[\w-]+\.[\w-]+\.[\w-]*$/i.test(m.headers.authorization ?? ''))
    m.headers.authorization = 'Bearer <redacted>'
  return m
}

function readable(m: Kept | undefined, bytes = false): Message {
  if (!m) return { headers: {}, body: null, truncated: false, size: 0 }
  const headers = isPairs(m.headers) ? record(m.headers) : { ...m.headers }
  if (typeof m.body === 'string' || m.body === null) return { ...m, headers, body: m.body }
  const kept = m.body instanceof Uint8Array ? m.body : m.body.bytes()
  const text = decoder.decode(kept)
  // A cut may fall inside a character: its first bytes decode to one replacement character.
  return { ...m, headers, body: m.truncated ? text.replace(/\uFFFD$/, '') : text, ...(bytes ? { bytes: kept } : {}) }
}

/** Received pairs as a Headers object would list them: names in lower case, repeats joined. */
function record(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const name = pairs[i].toLowerCase()
    const value = pairs[i + 1].trim()
    // Own keys: a header named `constructor` is not Object.prototype's.
    out[name] = Object.hasOwn(out, name) ? `${out[name]}${name === 'cookie' ? '; ' : ', '}${value}` : value
  }
  return out
}

const isPairs = (h: HeadersInput): h is readonly string[] => Array.isArray(h)
const isHeaders = (h: HeadersInput): h is Headers => typeof (h as Headers).forEach === 'function' && !Array.isArray(h)

/** UTF-8 bytes of headers as kept, or -1 when `strict` and one is long or all are many. */
function headerBytes(headers: Kept['headers'], strict = false): number {
  let n = 0
  const count = (name: string, value: string) => {
    if (strict && value.length > TEXT_LIMIT / 3) return false
    n += name.length + utf8Length(value)
    return !strict || n <= TEXT_LIMIT * 8
  }
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (!count(headers[i], headers[i + 1])) return -1
  } else {
    for (const name in headers) if (!count(name, (headers as Record<string, string>)[name])) return -1
  }
  return n
}

/**
 * Headers as kept, and their bytes. The pipeline's own record and node:http's pairs are fresh
 * strings, short in almost every request: kept as they are (counted, not copied). Others are
 * copied and cut.
 */
function keptHeaders(headers: HeadersInput): [Kept['headers'], number] {
  if (!isHeaders(headers)) {
    const bytes = headerBytes(headers, true)
    if (bytes >= 0) return [headers, bytes]
  }
  const kept: Record<string, string> = {}
  let total = 0
  const keep = (value: string, name: string) => {
    // Headers past the byte bound are dropped whole: a caller cannot grow an entry through them.
    if (total > TEXT_LIMIT * 8) return
    // Header values are strings of their own (no slices of a larger one) unless long.
    kept[name] = cutText(value, TEXT_LIMIT, false)
    total += name.length + utf8Length(kept[name])
  }
  if (isHeaders(headers)) headers.forEach(keep)
  else {
    // Pairs as `readable` shows kept ones: named in lower case, trimmed, repeats joined.
    const named = isPairs(headers) ? record(headers) : headers
    for (const name in named) keep(named[name], name)
  }
  return [kept, total]
}

/** A message as kept, and the bytes it holds: its headers and at most BODY_LIMIT of its body. */
function message(headers: HeadersInput, body: BodyInput, copy: boolean): [Kept, number] {
  const [kept, headerSize] = keptHeaders(headers)
  const size =
    body === null || body === undefined
      ? 0
      : typeof body === 'string'
        ? utf8Length(body)
        : body instanceof Uint8Array
          ? body.byteLength
          : body.size
  if (size === 0) return [{ headers: kept, body: null, truncated: false, size: 0 }, headerSize]
  if (size <= BODY_LIMIT)
    return [
      { headers: kept, body: body instanceof Uint8Array && copy ? body.slice() : body!, truncated: false, size },
      headerSize + size,
    ]
  // The first 64 KB, copied: a view would keep the whole body alive.
  const bytes = typeof body === 'string' ? encoder.encode(body) : body instanceof Uint8Array ? body : body!.bytes()
  return [{ headers: kept, body: bytes.slice(0, BODY_LIMIT), truncated: true, size }, headerSize + BODY_LIMIT]
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * `text` cut to at most `limit` UTF-8 bytes. Parts of a URL are always copied: V8 keeps a slice
 * (a URL's `search` is one of its `href`) pointing into the whole, which would outlive the bound.
 */
export function cutText(text: string, limit: number, copy = true): string {
  if (text.length <= 12 || (!copy && text.length * 3 <= limit)) return text
  const bytes = encoder.encode(text)
  return bytes.byteLength <= limit
    ? decoder.decode(bytes)
    : decoder.decode(bytes.subarray(0, limit)).replace(/\uFFFD$/, '')
}

/**
 * `text` cut to `limit` bytes, as a string of its own. A short one is copied by building a new
 * string: a URL's path or query is a slice of its whole href in V8, which a kept slice would
 * hold on to; `' ' + text` flattened by `slice` is a fresh copy, without the UTF-8 round trip
 * of `cutText` (a visible share of a list request when every text took it: `node bench/profile.mjs`).
 */
export function ownText(text: string, limit: number): string {
  if (text.length <= 12) return text
  if (text.length * 3 > limit && utf8Length(text) > limit) return cutText(text, limit)
  return (' ' + text).slice(1)
}

export function utf8Length(text: string): number {
  let n = text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) continue
    if (c < 0x800) n += 1
    else if (c >= 0xd800 && c <= 0xdbff)
      ((n += 2), i++) // a surrogate pair: 4 bytes for 2 units
    else n += 2
  }
  return n
}

/** Bytes of a write's changes as the journal counts them: their JSON as UTF-8 (as a snapshot holds them). */
export const changesBytes = (c: Changes | undefined) => (c ? utf8Length(JSON.stringify(c)) : 0)

/** A change counts too: a request's patch holds the records it wrote, old and new values. */
const entryBytes = (e: JournalEntry) =>
  utf8Length(e.method) +
  utf8Length(e.path) +
  utf8Length(e.query) +
  utf8Length(e.at) +
  e.faults.reduce((n, f) => n + utf8Length(f), 0) +
  changesBytes(e.changes)
