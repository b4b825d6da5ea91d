import { deeperThan } from '../http/json-depth.js'

/** What the journal keeps in place of a secret field's value. */
export const NOT_KEPT = '[not kept]'

const decoder = new TextDecoder('utf-8', { fatal: true })
const encoder = new TextEncoder()

/**
 * A request body as the journal may keep it: the route's secret fields (a password) replaced by
 * `[not kept]`, whether the request was accepted or refused. A body that is not a JSON object
 * cannot be searched for them, so none of it is kept (null): a password never reaches the
 * journal, the inspector, the HAR export or a snapshot.
 */
export function withoutSecrets(body: Uint8Array | undefined, secret: readonly string[]): Uint8Array | undefined {
  if (!body || body.byteLength === 0) return body
  let parsed: unknown
  try {
    parsed = JSON.parse(decoder.decode(body))
  } catch {
    return undefined
  }
  // Too deep to write again (the request was refused for it): none of it is kept either.
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || deeperThan(parsed)) return undefined
  const kept: Record<string, unknown> = { ...parsed }
  for (const name of secret) if (Object.hasOwn(kept, name)) kept[name] = NOT_KEPT
  return encoder.encode(JSON.stringify(kept))
}

/** Answer headers as the journal may keep them: the route's secret ones (a redirect's code) `[not kept]`. */
export function withoutHeaders(headers: Record<string, string>, secret: readonly string[]): Record<string, string> {
  const kept = { ...headers }
  for (const name of secret) if (Object.hasOwn(kept, name)) kept[name] = NOT_KEPT
  return kept
}
