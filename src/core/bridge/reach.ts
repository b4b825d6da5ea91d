// What the bridge's own requests need (passthrough, the drift walk, the checker): loaded with
// them, apart from upstream.ts, which every runtime's entry carries to decide what goes upstream.

/** Long enough for a slow staging host, short enough that a dead one does not hold a page. */
export const UPSTREAM_TIMEOUT_MS = 30_000

/** The upstream URL of a path and query: the base (its own path prefix kept), then the path. */
export function upstreamUrl(base: string, pathAndQuery: string): string {
  return base.replace(/\/+$/, '') + pathAndQuery
}

/** `host:port` of the upstream, as errors name it. */
export function upstreamHost(base: string): string {
  const url = new URL(base)
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`
}

/** Why a request to the upstream failed, in words that name the host and never a credential. */
export function unreachable(base: string, error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; cause?: { code?: string; message?: string }; message?: string }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
    return `upstream ${upstreamHost(base)} did not answer within ${timeoutMs / 1000} s`
  const why = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'unknown error'
  return `upstream ${upstreamHost(base)} could not be reached (${why})`
}

/** `/api/layers/:id` as the OpenAPI document writes it: `/api/layers/{id}`. */
export const documentPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')
