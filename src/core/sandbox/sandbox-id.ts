/** How a request names its isolated sandbox (docs/contract.md: `x-sandbox-id`, or cookie `sandbox-id`). */
export const SANDBOX_ID_HEADER = 'x-sandbox-id'
export const SANDBOX_ID_COOKIE = 'sandbox-id'
/** What an id may be: the served document's `pattern` of `x-sandbox-id` is this one. */
export const SANDBOX_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/
/** The 400's words for an id the pattern refuses. */
export const SANDBOX_ID_RULE = 'must be 1 to 128 letters, digits, ".", ":", "_" or "-"'

/** Anything with `get(name)`: `Headers`, and look-alikes such as Next.js's `ReadonlyHeaders`. */
export interface HeadersLike {
  get(name: string): string | null
}

/** A valid id made of `parts` (a test's worker, id and retry): what the pattern refuses becomes `-`, cut to its length. */
export const sandboxIdFrom = (parts: readonly (string | number)[]) =>
  parts
    .join('-')
    .replace(/[^\w.:-]/g, '-')
    .slice(0, 128)

/** Which sandbox a request selects: `x-sandbox-id`, else cookie `sandbox-id`, else the default. */
export function sandboxIdOf(request: { headers: HeadersLike }): string | undefined {
  // An empty header names no valid id: it is a 400 like any bad one, not the default sandbox.
  const header = request.headers.get(SANDBOX_ID_HEADER)
  if (header !== null) return header.trim()
  const cookie = request.headers.get('cookie')
  if (!cookie) return undefined
  const m = /(?:^|;\s*)sandbox-id=([^;]*)/.exec(cookie)
  if (!m) return undefined
  let value: string
  try {
    value = decodeURIComponent(m[1]).trim()
  } catch {
    value = m[1].trim()
  }
  // An emptied cookie is no cookie: the default sandbox.
  return value || undefined
}

export const validSandboxId = (id: string) => SANDBOX_ID_PATTERN.test(id)
