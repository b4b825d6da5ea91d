import { sandboxHeaders, withSandbox } from 'fleet-sandbox/ssr'

// The app's server talks to the API with its own credential; in development the API is the sandbox.
const API = process.env.SANDBOX_URL ?? 'http://127.0.0.1:4010'
const TOKEN = process.env.SANDBOX_TOKEN ?? 'atk_sandbox_admin'

/**
 * The API as this page's server calls it, in the world of the browser that asked: the
 * `x-sandbox-id` header or `sandbox-id` cookie of `request` goes with every call.
 */
export function apiFor(request: Request) {
  const call = withSandbox(fetch, request)
  return (path: string, init: RequestInit = {}) =>
    call(`${API}${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, ...init.headers } })
}

export const worldOf = (request: Request) => sandboxHeaders(request)['x-sandbox-id'] ?? 'default'
