/**
 * `fleet-sandbox/ssr`: a page rendered on the server reads the same world as the browser that
 * asked for it. The browser's request carries its world (the `x-sandbox-id` header, or the
 * `sandbox-id` cookie `fleet-sandbox/playwright` sets); the server's own calls to the sandbox
 * must carry it on: plain headers and fetch, so any framework's server code can use it (Next.js,
 * React Router, SvelteKit, Express).
 */
import { type HeadersLike, SANDBOX_ID_HEADER, sandboxIdOf } from '../../core/sandbox/sandbox-id.js'

export type { HeadersLike } from '../../core/sandbox/sandbox-id.js'

/** Node's `IncomingMessage` headers: lower-case names, repeated ones as arrays. */
export type IncomingHeaders = Record<string, string | string[] | undefined>

/** What a framework hands its server code: a Fetch `Request`, a `Headers`, or a Node request (or its headers). */
export type Incoming = Request | HeadersLike | { headers: HeadersLike | IncomingHeaders } | IncomingHeaders

const hasGet = (value: unknown): value is HeadersLike => typeof (value as HeadersLike | undefined)?.get === 'function'

function headersOf(incoming: Incoming): HeadersLike {
  if (hasGet(incoming)) return incoming
  const inner = (incoming as { headers?: unknown }).headers
  if (hasGet(inner)) return inner
  const record = (inner && typeof inner === 'object' ? inner : incoming) as IncomingHeaders
  return {
    get(name) {
      const value = record[name] ?? record[Object.keys(record).find((k) => k.toLowerCase() === name) ?? '']
      if (value === undefined) return null
      // Node joins repeated cookie headers with "; ", others with ", ".
      return Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : String(value)
    },
  }
}

/**
 * The header to add to the server's own calls to the sandbox: `{'x-sandbox-id': id}` from the
 * incoming request's `x-sandbox-id` header, else its `sandbox-id` cookie; `{}` when it carries
 * neither (the default world).
 */
export function sandboxHeaders(incoming: Incoming): Record<string, string> {
  const id = sandboxIdOf({ headers: headersOf(incoming) })
  return id ? { [SANDBOX_ID_HEADER]: id } : {}
}

/**
 * `fetch` that sends the incoming request's world with every call, unless a call names one
 * itself: `const api = withSandbox(fetch, request)` in a loader, then `api(url, init)`.
 */
export function withSandbox<F extends (input: any, init?: any) => Promise<Response>>(
  fetchFn: F,
  incoming: Incoming,
): F {
  const extra = sandboxHeaders(incoming)
  const id = extra[SANDBOX_ID_HEADER]
  if (id === undefined) return fetchFn
  return ((input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
    if (!headers.has(SANDBOX_ID_HEADER)) headers.set(SANDBOX_ID_HEADER, id)
    return fetchFn(input, { ...init, headers })
  }) as F
}
