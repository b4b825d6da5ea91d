/** The control API's credential (CONTROL_TOKEN_HEADER; not imported: this module stays out of the browser entry). */
const CONTROL_TOKEN = 'x-sandbox-control-token'

/**
 * A request's headers as the journal is to keep them (name/value pairs as received): the
 * control token `<redacted>`, so the panel, an entry's detail and the HAR never show it. The
 * request itself keeps it (the control API's guard reads it there). The same pairs when the
 * header is absent, as in almost every request. Used by the HTTP runtimes, the only ones with a
 * control token (the browser worker has none).
 */
export function shownHeaders(pairs: readonly string[]): readonly string[] {
  for (let i = 0; i < pairs.length; i += 2) {
    if (pairs[i].length === CONTROL_TOKEN.length && pairs[i].toLowerCase() === CONTROL_TOKEN) {
      const copy = pairs.slice()
      for (let j = i; j < copy.length; j += 2) if (copy[j].toLowerCase() === CONTROL_TOKEN) copy[j + 1] = '<redacted>'
      return copy
    }
  }
  return pairs
}
