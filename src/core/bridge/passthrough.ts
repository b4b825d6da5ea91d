import { errorBody } from '../http/status.js'
import { UPSTREAM_TIMEOUT_MS, unreachable, upstreamHost, upstreamUrl } from './reach.js'
import type { UpstreamOptions } from './upstream.js'

export const UPSTREAM_HEADER = 'x-sandbox-upstream'

/** How a runtime reaches the network: msw's runtimes mark the request so they do not answer it themselves. */
export type UpstreamFetch = (request: Request) => Promise<UpstreamAnswer>
/** What the bridge reads of an upstream's answer (`RequestMeta.fetch`): a `Response`, or its head where no Response can carry the status. */
export type UpstreamAnswer = Pick<Response, 'status' | 'statusText' | 'headers' | 'body'>

/** The control API's credential (CONTROL_TOKEN_HEADER, not imported: the browser entry would load guard.ts in a chunk of its own). */
const CONTROL_TOKEN = 'x-sandbox-control-token'

/** RFC 9110 7.6.1: meant for one connection, never forwarded; `host` is the new request's own. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]
/**
 * The sandbox's, not the upstream's: its control credential, and `expect` (the runtime's HTTP
 * server already answered `100 Continue` and read the body; undici's fetch refuses the header).
 */
const OURS = [CONTROL_TOKEN, 'expect']

function forwardable(headers: Headers, extra: readonly string[]): Headers {
  const out = new Headers(headers)
  const named = (headers.get('connection') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
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
 * ones and the sandbox's own dropped, the length kept) and body, streamed; the upstream's
 * answer as is, streamed, with `x-sandbox-upstream: passthrough`. The upstream token is never
 * added: the caller's credentials are the caller's. An upstream that cannot be reached, or
 * sends no answer within the timeout, is a 502 naming its host and port; a body it leaves
 * silent that long is cut, and a caller gone takes the upstream's request with it.
 */
export async function forward(
  request: Request,
  upstream: UpstreamOptions,
  /** The request's path and query, as its target holds them. */
  pathAndQuery: string,
  fetchFn: UpstreamFetch = (r) => fetch(r),
): Promise<Forwarded> {
  const timeoutMs = upstream.timeoutMs ?? UPSTREAM_TIMEOUT_MS
  const hasBody = request.body !== null && request.method !== 'GET' && request.method !== 'HEAD'
  const [body, requestCopy] = hasBody ? request.body!.tee() : [null, null]
  const abort = new AbortController()
  const timeout = () => abort.abort(new DOMException('upstream time-out', 'TimeoutError'))
  // The caller gone (the runtime aborts its request's signal): the upstream's request goes too.
  const gone = () => abort.abort(request.signal.reason)
  request.signal?.addEventListener('abort', gone, { once: true })
  const done = () => request.signal?.removeEventListener('abort', gone)
  // The timeout covers the wait for the answer's head; the body has its own (`streamed`).
  const timer = setTimeout(timeout, timeoutMs)
  const failed = (message: string): Forwarded => {
    done()
    void requestCopy?.cancel().catch(() => undefined)
    return {
      response: new Response(JSON.stringify(errorBody('standard', 502, message)), {
        status: 502,
        headers: { 'content-type': 'application/json', [UPSTREAM_HEADER]: 'passthrough' },
      }),
      copy: null,
      requestCopy: null,
    }
  }
  let answer: UpstreamAnswer
  try {
    answer = await fetchFn(
      new Request(upstreamUrl(upstream.url, pathAndQuery), {
        method: request.method,
        // A body's length goes as the caller sent it (no chunked encoding the caller did not use).
        headers: forwardable(request.headers, hasBody ? OURS : [...OURS, 'content-length']),
        body,
        redirect: 'manual',
        signal: abort.signal,
        ...(body ? { duplex: 'half' } : {}),
      } as RequestInit),
    )
  } catch (error) {
    const cause = abort.signal.aborted ? abort.signal.reason : error
    return failed(unreachable(upstream.url, cause, timeoutMs))
  } finally {
    clearTimeout(timer)
  }
  // No Response carries a status outside 200-599 (an interim 1xx is not an answer).
  if (answer.status < 200 || answer.status > 599) {
    void answer.body?.cancel().catch(() => undefined)
    return failed(
      `upstream ${upstreamHost(upstream.url)} answered status ${answer.status}, which is not a final HTTP answer`,
    )
  }
  // The runtime's fetch has decoded the body: its encoding and length are no longer the bytes'.
  const headers = forwardable(answer.headers, ['content-encoding', 'content-length'])
  headers.set(UPSTREAM_HEADER, 'passthrough')
  if (!answer.body) done()
  const [toCaller, copy] = answer.body ? streamed(answer.body, abort, timeoutMs, done) : [null, null]
  const response = new Response(toCaller, { status: answer.status, statusText: answer.statusText, headers })
  return { response, copy, requestCopy }
}

/**
 * The upstream's body for the caller, read as the caller reads it, and a copy of each chunk
 * for the journal and the check. Silent for `timeoutMs` (the caller waiting on it), the body
 * is cut: the caller's stream fails rather than end short. The caller gone (its stream
 * cancelled), the upstream's request is aborted; either way the copy ends, so the journal
 * entry is written.
 */
function streamed(
  body: ReadableStream<Uint8Array>,
  abort: AbortController,
  timeoutMs: number,
  done: () => void,
): [ReadableStream<Uint8Array>, ReadableStream<Uint8Array>] {
  const reader = body.getReader()
  let copy: ReadableStreamDefaultController<Uint8Array> | undefined
  const end = (error?: unknown) => {
    done()
    try {
      if (error === undefined) copy?.close()
      else copy?.error(error)
    } catch {
      // the copy's reader already let go of it
    }
    copy = undefined
  }
  const stop = (reason: unknown) => {
    abort.abort(reason)
    void reader.cancel(reason).catch(() => undefined)
  }
  const toCaller = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const timer = setTimeout(
        () => stop(new DOMException(`upstream body silent for ${timeoutMs / 1000} s`, 'TimeoutError')),
        timeoutMs,
      )
      let next: ReadableStreamReadResult<Uint8Array>
      try {
        next = await reader.read()
      } catch (error) {
        next = { done: true, value: undefined }
        if (!abort.signal.aborted) abort.abort(error)
      } finally {
        clearTimeout(timer)
      }
      if (abort.signal.aborted) {
        end(abort.signal.reason)
        throw abort.signal.reason
      }
      if (next.done) {
        end()
        return controller.close()
      }
      controller.enqueue(next.value)
      try {
        copy?.enqueue(next.value)
      } catch {
        copy = undefined
      }
    },
    cancel(reason) {
      stop(reason ?? new DOMException('the caller left', 'AbortError'))
      end(reason ?? new Error('the caller left'))
    },
  })
  const journal = new ReadableStream<Uint8Array>({
    start: (controller) => void (copy = controller),
    // Read up to its limit: the rest goes to the caller alone.
    cancel: () => void (copy = undefined),
  })
  return [toCaller, journal]
}

/** Reads a copy of a body up to `limit` bytes as text (the rest is not waited for); whether it was cut. */
export async function readUpTo(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<{ text: string | null; cut: boolean }> {
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
  const all = new Uint8Array(
    Math.min(
      limit,
      chunks.reduce((n, c) => n + c.byteLength, 0),
    ),
  )
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
    if (name === 'authorization' || name === 'proxy-authorization')
      out[name] = /^\s*bearer\s/i.test(value) ? 'Bearer <redacted>' : '<redacted>'
    else if (name === 'cookie' || name === 'set-cookie' || name === CONTROL_TOKEN) out[name] = '<redacted>'
    else out[name] = value
  })
  return out
}
