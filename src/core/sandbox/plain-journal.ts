import {
  BODY_LIMIT,
  changesBytes,
  type ExchangeInput,
  type HeadersInput,
  JOURNAL_MAX_BYTES,
  JOURNAL_MAX_ENTRIES,
  type JournalDetail,
  type JournalEntry,
  type Message,
  TEXT_LIMIT,
  cutText,
  ENTRY_OVERHEAD,
  shownCredentials,
  utf8Length,
} from './journal.js'

interface Kept {
  detail: JournalDetail
  bytes: number
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/**
 * The journal as plainly as it can be written: each exchange made what the inspector shows
 * when it is added (headers a record, bodies text), kept in an array cut from the front. The
 * tuned `Journal` (journal.ts) keeps bodies as bytes or sources and headers as received, and
 * reads them only when asked; test/world/journal-reference.test.ts checks both answer the same. Never served.
 */
export class PlainJournal {
  #kept: Kept[] = []
  #next = 1

  constructor(
    readonly capacity = JOURNAL_MAX_ENTRIES,
    readonly maxBytes = JOURNAL_MAX_BYTES,
  ) {}

  get size(): number {
    return this.#kept.length
  }

  get bytes(): number {
    return this.#kept.reduce((n, k) => n + k.bytes, 0)
  }

  get firstId(): number {
    return this.#kept[0]?.detail.id ?? this.#next
  }

  add(
    input: Omit<JournalEntry, 'id'>,
    exchange?: ExchangeInput,
    marks?: Pick<JournalEntry, 'via' | 'tool'>,
  ): JournalEntry {
    const entry: JournalEntry = {
      id: this.#next++,
      method: input.method,
      path: cutText(input.path, TEXT_LIMIT),
      query: cutText(input.query, TEXT_LIMIT),
      status: input.status,
      faults: input.faults,
      durationMs: input.durationMs,
      at: input.at,
      ...(input.changes && { changes: input.changes }),
      ...marks,
    }
    const origin = exchange ? cutText(exchange.origin, 256) : ''
    const request = exchange ? message(exchange.request) : EMPTY
    const response = exchange ? message(exchange.response) : EMPTY
    const bytes = ENTRY_OVERHEAD + textBytes(entry) + utf8Length(origin) + request.bytes + response.bytes
    this.#kept.push({
      detail: {
        ...entry,
        url: origin ? origin + entry.path + entry.query : '',
        request: request.message,
        response: response.message,
      },
      bytes,
    })
    // Oldest out first, past the entries bound or the bytes bound (the newest always stays).
    while (this.#kept.length > this.capacity || (this.bytes > this.maxBytes && this.#kept.length > 1))
      this.#kept.shift()
    return entry
  }

  list(): JournalEntry[] {
    return this.#kept.map((k) => entryOf(k.detail))
  }

  since(id: number): JournalEntry[] {
    return this.list().filter((e) => e.id > id)
  }

  get(id: number): JournalDetail | undefined {
    const kept = this.#kept.find((k) => k.detail.id === id)
    return kept && shown(kept.detail)
  }

  details(): JournalDetail[] {
    return this.#kept.map((k) => shown(k.detail))
  }

  clear(): void {
    this.#kept = []
  }
}

const shown = (d: JournalDetail): JournalDetail => ({
  ...d,
  request: shownCredentials({ ...d.request, headers: { ...d.request.headers } }),
})

const EMPTY = { message: { headers: {}, body: null, truncated: false, size: 0 } as Message, bytes: 0 }

const entryOf = ({
  id,
  method,
  path,
  query,
  status,
  faults,
  durationMs,
  at,
  changes,
  via,
  tool,
}: JournalDetail): JournalEntry => ({
  id,
  method,
  path,
  query,
  status,
  faults,
  durationMs,
  at,
  ...(changes && { changes }),
  ...(tool && { via, tool }),
})

/** Texts as UTF-8, and a change as its patch's JSON (changesBytes). */
const textBytes = (e: JournalEntry) =>
  [e.method, e.path, e.query, e.at, ...e.faults].reduce((n, t) => n + utf8Length(t), 0) + changesBytes(e.changes)

/**
 * Headers as the inspector shows them, and the bytes they count. Pairs as received are named
 * in lower case, trimmed and repeats joined (a cookie with `; `). Headers with a value longer
 * than a third of TEXT_LIMIT, or past 8 × TEXT_LIMIT bytes in all, or given as a Headers
 * object, are copied: each value cut at TEXT_LIMIT bytes, and those past the bound dropped.
 */
function headers(input: HeadersInput): { headers: Record<string, string>; bytes: number } {
  const given: [string, string][] = []
  if (Array.isArray(input)) for (let i = 0; i + 1 < input.length; i += 2) given.push([input[i], input[i + 1]])
  else if (typeof (input as Headers).forEach === 'function')
    (input as Headers).forEach((value, name) => given.push([name, value]))
  else given.push(...Object.entries(input as Record<string, string>))
  const pairs = Array.isArray(input)
  const asGiven = given.reduce((n, [name, value]) => n + name.length + utf8Length(value), 0)
  const short = given.every(([, value]) => value.length <= TEXT_LIMIT / 3)
  const joined: Record<string, string> = {}
  for (const [name, value] of given) {
    const key = pairs ? name.toLowerCase() : name
    const v = pairs ? value.trim() : value
    joined[key] = key in joined && pairs ? `${joined[key]}${key === 'cookie' ? '; ' : ', '}${v}` : v
  }
  if (!Array.isArray(input) && typeof (input as Headers).forEach === 'function') {
    // A Headers object: copied, as it came.
  } else if (short && asGiven <= TEXT_LIMIT * 8) return { headers: joined, bytes: asGiven }
  const out: Record<string, string> = {}
  let bytes = 0
  for (const [name, value] of pairs ? Object.entries(joined) : given) {
    if (bytes > TEXT_LIMIT * 8) break
    out[name] = cutText(value, TEXT_LIMIT, false)
    bytes += name.length + utf8Length(out[name])
  }
  return { headers: out, bytes }
}

/** One side of an exchange as the inspector shows it, and the bytes it counts: a body past BODY_LIMIT is cut there. */
function message(side: ExchangeInput['request']): { message: Message; bytes: number } {
  const h = headers(side.headers)
  const raw = side.body
  // Text is kept as it came when it fits.
  if (typeof raw === 'string' && raw.length > 0 && utf8Length(raw) <= BODY_LIMIT)
    return {
      message: { headers: h.headers, body: raw, truncated: false, size: utf8Length(raw) },
      bytes: h.bytes + utf8Length(raw),
    }
  const all =
    raw === null || raw === undefined
      ? null
      : typeof raw === 'string'
        ? encoder.encode(raw)
        : raw instanceof Uint8Array
          ? raw
          : raw.bytes()
  if (!all || all.length === 0)
    return { message: { headers: h.headers, body: null, truncated: false, size: 0 }, bytes: h.bytes }
  if (all.length <= BODY_LIMIT)
    return {
      message: { headers: h.headers, body: decoder.decode(all), truncated: false, size: all.length },
      bytes: h.bytes + all.length,
    }
  // A cut may fall inside a character: its first bytes decode to one replacement character, dropped.
  return {
    message: {
      headers: h.headers,
      body: decoder.decode(all.subarray(0, BODY_LIMIT)).replace(/\uFFFD$/, ''),
      truncated: true,
      size: all.length,
    },
    bytes: h.bytes + BODY_LIMIT,
  }
}
