/** How a request names its isolated sandbox (docs/contract.md: `x-sandbox-id`, or cookie `sandbox-id`). */
export const SANDBOX_ID_HEADER = 'x-sandbox-id'
export const SANDBOX_ID_COOKIE = 'sandbox-id'
const ID_PATTERN = /^[\w.:-]{1,128}$/

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
  const header = request.headers.get(SANDBOX_ID_HEADER)
  if (header !== null) return header.trim()
  const cookie = request.headers.get('cookie')
  if (!cookie) return undefined
  const m = /(?:^|;\s*)sandbox-id=([^;]*)/.exec(cookie)
  if (!m) return undefined
  try {
    return decodeURIComponent(m[1]).trim()
  } catch {
    return m[1].trim()
  }
}

export const validSandboxId = (id: string) => ID_PATTERN.test(id)
