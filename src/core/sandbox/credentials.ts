import { deeperThan } from '../http/json-depth.js'
import { fromLatin1, latin1 } from '../http/bytes.js'
import { NOT_KEPT } from '../store/changes.js'
import { BODY_LIMIT } from './journal.js'

export { NOT_KEPT }

/**
 * The one scrubber of credentials: what the journal keeps (and so its list, an entry's detail,
 * the HAR, a snapshot's journal), a Pact file and a repro bundle. A value is a credential by
 * what it is, wherever the app put it (a query, a body field of any name, inside text): a token
 * the sandbox minted or knows (sessions `ses_`, API keys `atk_`, reset tokens, magic links, OAuth
 * codes and refresh tokens, signed JWTs), or the value of a field named as a secret is named in
 * any API's spelling (`password`, `newPassword`, `client_secret`, `access_token`...), or one the
 * route declares secret (`secret` of its definition).
 */

/** Field and query names whose values open an account. */
const SECRET_NAME = /passw(?:or)?d|passphrase|secret|token$|^(?:api|access|private)[_-]?key$|^code[_-]?verifier$/i
/** Tokens by their shape. Ids (`ntf_…`, `oac_…` client ids) are not credentials. */
const TOKENS =
  /\b(?:ses|prt|mlk|mnt|pwd|ac)_[0-9a-f]{16,}\b|\batk_[A-Za-z0-9_]{4,}|\brt_[A-Za-z0-9]+_[0-9a-f]{32,}|\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g
const TOKEN = new RegExp(TOKENS.source)
/** A cheap look before any parsing: most requests carry nothing the scrubber changes. */
const MAYBE = /passw|passphrase|secret|token|key|verifier|(?:ses|prt|mlk|mnt|pwd|ac|atk|rt)_|eyJ/i
const MAYBE_TOKEN = /(?:ses|prt|mlk|mnt|pwd|ac|atk|rt)_|eyJ/

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** Whether a field or query key names a secret (its own route's `secret` fields too). */
export const secretName = (key: string, secret: readonly string[] = []): boolean =>
  (SECRET_NAME.test(key) && !/page[_-]?token$/i.test(key)) || secret.includes(key)

/** Whether a text is, or holds, a token of ours. */
export const holdsToken = (text: string): boolean => TOKEN.test(text)

/** A text with every token in it replaced. */
export const scrubText = (text: string): string => (MAYBE_TOKEN.test(text) ? text.replace(TOKENS, NOT_KEPT) : text)

/** A multipart/form-data part: its headers (the field's name among them), then its value up to the next boundary. */
const FORM_PART =
  /(content-disposition:[ \t]*form-data;[^\r\n]*?\bname="([^"\r\n]*)"[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n)([\s\S]*?)(?=\r\n--)/gi

/**
 * A multipart/form-data body with its credentials replaced: a part named as a secret whole, tokens
 * in the rest. Works on text or on bytes read one character per byte (a form with a file), whose
 * other bytes it leaves as they are.
 */
export const scrubForm = (text: string, secret: readonly string[] = []): string =>
  scrubText(
    /form-data/i.test(text)
      ? text.replace(FORM_PART, (part, head: string, name: string) =>
          secretName(name, secret) ? head + NOT_KEPT : part,
        )
      : text,
  )

/** Bytes that are not UTF-8 (an upload) with the credentials their ASCII holds replaced, a form's secret parts too. */
export function scrubBytes(bytes: Uint8Array, secret: readonly string[] = []): Uint8Array {
  const text = latin1(bytes)
  if (!MAYBE.test(text)) return bytes
  const kept = scrubForm(text, secret)
  return kept === text ? bytes : fromLatin1(kept)
}

/** A credential by its field or by what it is: a contract, a journal or a bundle carries `[not kept]` instead. */
export const isCredential = (key: string, value: unknown, secret: readonly string[] = []): boolean =>
  (typeof value === 'string' || typeof value === 'number') &&
  value !== NOT_KEPT &&
  (secretName(key, secret) || (typeof value === 'string' && holdsToken(value)))

/** JSON with its credentials replaced: secret fields whole, tokens inside any text. */
export function scrubJson<T>(value: T, secret: readonly string[] = [], keep = (_: string) => false): T {
  const walk = (v: Json, key: string): Json => {
    if (Array.isArray(v)) return v.map((x) => walk(x, key))
    if (v && typeof v === 'object') {
      const out: Record<string, Json> = {}
      for (const [k, x] of Object.entries(v))
        out[k] =
          x !== null && x !== NOT_KEPT && !(typeof x === 'string' && keep(x)) && secretName(k, secret)
            ? NOT_KEPT
            : walk(x, k)
      return out
    }
    return typeof v === 'string' ? scrubText(v) : v
  }
  return walk(value as Json, '') as T
}

const decodePart = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    return s
  }
}

/** A query (`?a=1&token=x`, or a form body) with its credentials replaced; as it was when it has none. */
export function scrubQuery(search: string, secret: readonly string[] = [], keep = (_: string) => false): string {
  if (search.length < 3 || !MAYBE.test(search)) return search
  const lead = search.startsWith('?') ? '?' : ''
  const pairs = (lead ? search.slice(1) : search).split('&').map((pair) => {
    const at = pair.indexOf('=')
    if (at < 0) return pair
    const key = decodePart(pair.slice(0, at))
    const value = decodePart(pair.slice(at + 1))
    if (value === NOT_KEPT || keep(value)) return pair
    if (secretName(key, secret)) return `${pair.slice(0, at)}=${encodeURIComponent(NOT_KEPT)}`
    return holdsToken(value) ? `${pair.slice(0, at)}=${encodeURIComponent(scrubText(value))}` : pair
  })
  return lead + pairs.join('&')
}

const decoder = new TextDecoder('utf-8', { fatal: true })
const encoder = new TextEncoder()

/**
 * A request or answer body as the journal may keep it: JSON with its credentials replaced, a
 * form or text likewise. A route with `secret` fields (a sign-in) keeps a body it cannot search
 * (not a JSON object) not at all (undefined): its password never reaches the journal. Bytes
 * that are not text (an upload) keep every byte but the credentials their ASCII holds.
 */
export function scrubBody<B extends Uint8Array | null | undefined>(
  body: B,
  secret: readonly string[] = [],
): B | undefined {
  if (!body || body.byteLength === 0) return body
  let text: string
  try {
    text = decoder.decode(body)
  } catch {
    if (secret.length) return undefined
    // Of an upload of megabytes only what the journal keeps is read; the rest goes as it came.
    if (body.byteLength <= BODY_LIMIT) return scrubBytes(body) as B
    const first = body.subarray(0, BODY_LIMIT)
    const head = scrubBytes(first)
    if (head === first) return body
    const out = new Uint8Array(head.byteLength + body.byteLength - BODY_LIMIT)
    out.set(head)
    out.set(body.subarray(BODY_LIMIT), head.byteLength)
    return out as B
  }
  const kept = scrubBodyText(text, secret)
  return kept === undefined ? undefined : kept === text ? body : (encoder.encode(kept) as B)
}

/** A body's text as `scrubBody` keeps it (undefined: none of it); `keep` spares values such as a bundle's marks. */
export function scrubBodyText(
  text: string,
  secret: readonly string[] = [],
  keep?: (value: string) => boolean,
): string | undefined {
  if (!secret.length && !MAYBE.test(text)) return text
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    if (secret.length) return undefined
    return /^[^\s=&]+=[^\s]*$/.test(text) ? scrubQuery(text, [], keep) : scrubForm(text)
  }
  // Too deep to write again (the request was refused for it): none of it is kept.
  if (deeperThan(parsed)) return undefined
  if (secret.length && (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))) return undefined
  const kept = JSON.stringify(scrubJson(parsed, secret, keep))
  return kept === JSON.stringify(parsed) ? text : kept
}

/** An answer's text as the journal keeps it: the tokens it shows replaced (a sign-in's, an OAuth grant's). */
export const scrubAnswer = <T>(text: T): T => (typeof text === 'string' ? (scrubText(text) as T) : text)

/** Headers with their credentials replaced: the route's secret ones whole (a redirect's code), tokens in any. */
export function scrubHeaders(headers: Record<string, string>, secret: readonly string[] = []): Record<string, string> {
  let kept: Record<string, string> | undefined
  for (const name in headers) {
    const value = headers[name]
    const next = secret.includes(name) ? NOT_KEPT : scrubText(value)
    if (next !== value) (kept ??= { ...headers })[name] = next
  }
  return kept ?? headers
}
