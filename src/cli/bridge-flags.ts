import { type UpstreamOptions, upstreamProblem } from '../core/bridge/upstream.js'

/**
 * The bridge's flags (docs/bridge.md), in one place: the server, `drift` and `record` take them
 * alike, and they move into the options schema as they are.
 */
export const bridgeFlags = {
  upstream: { type: 'string', env: 'SANDBOX_UPSTREAM', help: 'real backend: /api/... requests no route matches go to URL, answers are checked (docs/bridge.md)' },
  'upstream-token': { type: 'string', env: 'SANDBOX_UPSTREAM_TOKEN', help: "bearer token of the sandbox's own upstream requests (drift walk, record); never added to a caller's request" },
  'upstream-route': { type: 'string', multiple: true, env: 'SANDBOX_UPSTREAM_ROUTE', help: 'a served route that goes to the upstream anyway: * one segment, ** the rest; repeat it, or list them comma-separated' },
} as const

/** The upstream the bridge flags describe, or none; a bad URL or pattern is refused naming the flag. */
export function upstreamFromFlags(get: (name: keyof typeof bridgeFlags) => string | undefined, fail: (message: string) => never): UpstreamOptions | undefined {
  const url = get('upstream')
  const token = get('upstream-token')
  const patterns = get('upstream-route')?.split(',').map((p) => p.trim()).filter(Boolean)
  if (url === undefined) {
    if (patterns?.length) fail('--upstream-route: needs --upstream URL')
    if (token) fail('--upstream-token: needs --upstream URL')
    return undefined
  }
  // The message names the flag, never the URL's credentials (refused by upstreamProblem anyway).
  const problem = upstreamProblem(url)
  if (problem) fail(`--upstream: ${problem}`)
  for (const p of patterns ?? []) {
    if (!p.startsWith('/api/')) fail(`--upstream-route: a pattern starts with /api/ (the control API never goes upstream), got "${p}"`)
  }
  return { url: url.replace(/\/+$/, ''), ...(token ? { token } : {}), ...(patterns?.length ? { routes: patterns } : {}) }
}
