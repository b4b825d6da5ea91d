/**
 * What an HTTP/1.1 answer can carry, for answers a user defines (overrides, scenario hooks):
 * checked when they are defined, and again where the answer is built, since a header a
 * socket cannot write made workerd's front exit and the Node server answer a bare 500.
 */

/** A header name: an RFC 9110 token. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** A header value: tab, visible ASCII and space, and Latin-1's letters (RFC 9110 5.5's obs-text without its C1 controls); no CR, LF, NUL or other control, nothing past U+00FF. */
export const HEADER_VALUE = /^[\t\x20-\x7e\xa0-\xff]*$/
export const HEADER_VALUE_RULE =
  'must hold only tabs, spaces, visible ASCII and Latin-1 letters (what an HTTP header carries; no control characters)'
/** Headers that frame the message or the connection: the server writes them, an answer that set them would leave the client out of step. */
export const FRAMING = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
])
export const FRAMING_RULE = 'is written by the server (it frames the message or the connection)'
/** Statuses whose answers carry no body (RFC 9110 15.3.5, 15.3.6, 15.4.5). */
export const NO_BODY = new Set([204, 205, 304])

/** Why an answer cannot be written, or undefined when it can: its status, headers and body as a Response takes them. */
export function unsendable(status: unknown, headers: unknown, body: unknown): string | undefined {
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599)
    return `status ${describe(status)} is not an integer from 200 to 599`
  if (NO_BODY.has(status) && body !== undefined && body !== null) return `a ${status} answer carries no body`
  if (headers === undefined || headers === null) return undefined
  if (typeof headers !== 'object' || Array.isArray(headers)) return 'headers must be an object of names and values'
  for (const name in headers) {
    if (!HEADER_NAME.test(name)) return `header name ${describe(name)} is not a token`
    if (FRAMING.has(name.toLowerCase())) return `header ${name} ${FRAMING_RULE}`
    const value = (headers as Record<string, unknown>)[name]
    if (typeof value !== 'string' && typeof value !== 'number') return `header ${name} is not a text`
    if (!HEADER_VALUE.test(String(value))) return `header ${name} ${HEADER_VALUE_RULE}`
  }
  return undefined
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  try {
    return (JSON.stringify(value) ?? String(value)).slice(0, 64)
  } catch {
    return typeof value
  }
}
