import { errorBody } from '../http/status.js'
import { UPSTREAM_TIMEOUT_MS, unreachable, upstreamUrl } from './reach.js'
import type { UpstreamOptions } from './upstream.js'

export const UPSTREAM_HEADER = 'x-sandbox-upstream'

/** How a runtime reaches the network: msw's runtimes mark the request so they do not answer it themselves. */
export type UpstreamFetch = (request: Request) => Promise<Response>

/** RFC 9110 7.6.1: meant for one connection, never forwarded; `host` and `content-length` are the new request's own. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']

function forwardable(headers: Headers, extra: readonly string[] = []): Headers {
  const out = new Headers(headers)
  const named = (headers.get('connection') ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)
  for (const name of [...HOP_BY_HOP, ...named, ...extra]) out.delete(name)
  return out
}

export interface Forwarded {
  response: Response
  /** A second copy of the upstream's body, for the journal and the check; null on a 502. */
  copy: ReadableStream<Uint8Array> | null
  /** A second copy of the caller's body, for the journal. */
  requestCopy: ReadableStream<Uint8Array> | null
}

/**
 * Forwards a request to the upstream: the caller's method, path, query, headers (hop-by-hop
 * ones dropped) and body, streamed; the upstream's answer as is, streamed, with
 * `x-sandbox-upstream: passthrough`. The upstream token is never added: the caller's
 * credentials are the caller's. An upstream that cannot be reached, or sends no answer within
 * the timeout, is a 502 naming its host and port.
 */
export async function forward(request: Request, upstream: UpstreamOptions, fetchFn: UpstreamFetch = (r) => fetch(r)): Promise<Forwarded> {
  const url = new URL(request.url)
  const timeoutMs = upstream.timeoutMs ?? UPSTREAM_TIMEOUT_MS
  const hasBody = request.body !== null && request.method !== 'GET' && request.method !== 'HEAD'
  const [body, requestCopy] = hasBody ? request.body!.tee() : [null, null]
  // The timeout covers the wait for the answer's head, not a long body after it.
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(new DOMException('upstream time-out', 'TimeoutError')), timeoutMs)
  let answer: Response
  try {
    answer = await fetchFn(new Request(upstreamUrl(upstream.url, url.pathname + url.search), {
      method: request.method,
      headers: forwardable(request.headers),
      body,
      redirect: 'manual',
      signal: abort.signal,
      ...(body ? { duplex: 'half' } : {}),
    } as RequestInit))
  } catch (error) {
    void requestCopy?.cancel().catch(() => undefined)
    const cause = abort.signal.aborted ? abort.signal.reason : error
    const message = unreachable(upstream.url, cause, timeoutMs)
    return {
      response: new Response(JSON.stringify(errorBody('standard', 502, message)), { status: 502, headers: { 'content-type': 'application/json', [UPSTREAM_HEADER]: 'passthrough' } }),
      copy: null,
      requestCopy: null,
    }
  } finally {
    clearTimeout(timer)
  }
  // The runtime's fetch has decoded the body: its encoding and length are no longer the bytes'.
  const headers = forwardable(answer.headers, ['content-encoding'])
  headers.set(UPSTREAM_HEADER, 'passthrough')
  const [toCaller, copy] = answer.body ? answer.body.tee() : [null, null]
  const response = new Response(toCaller, { status: answer.status, statusText: answer.statusText, headers })
  return { response, copy, requestCopy }
}

/** Reads a copy of a body up to `limit` bytes as text (the rest is not waited for); whether it was cut. */
export async function readUpTo(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<{ text: string | null; cut: boolean }> {
  if (!stream) return { text: null, cut: false }
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
      if (size > limit) {
        void reader.cancel().catch(() => undefined)
        return { text: decode(chunks, limit), cut: true }
      }
    }
  } catch {
    return { text: decode(chunks, size), cut: true }
  }
  return { text: decode(chunks, size), cut: false }
}

function decode(chunks: Uint8Array[], limit: number): string {
  const all = new Uint8Array(Math.min(limit, chunks.reduce((n, c) => n + c.byteLength, 0)))
  let at = 0
  for (const c of chunks) {
    if (at >= all.length) break
    all.set(c.subarray(0, all.length - at), at)
    at += c.byteLength
  }
  return new TextDecoder().decode(all)
}

/** Request headers as the journal shows a passed-through request: credentials redacted. */
export function redactedHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    if (name === 'authorization' || name === 'proxy-authorization') out[name] = /^\s*bearer\s/i.test(value) ? 'Bearer <redacted>' : '<redacted>'
    else if (name === 'cookie' || name === 'set-cookie') out[name] = '<redacted>'
    else out[name] = value
  })
  return out
}
