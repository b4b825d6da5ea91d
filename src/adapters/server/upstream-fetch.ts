import { type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { Readable, type Transform } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { UpstreamAnswer } from '../../core/bridge/passthrough.js'

/** What undici's fetch decodes; any other encoding goes as it came. */
const DECODERS = new Map<string, () => Transform>([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
])

/** Statuses whose answer has no body. */
const EMPTY = new Set([204, 205, 304])

/**
 * The Node engine's way to the upstream: node:http with exactly the headers the bridge hands
 * it. The global fetch (undici) adds headers the caller never sent (`accept-language: *`,
 * `sec-fetch-mode`, `user-agent: node`, `accept-encoding`) and refuses `expect`: the upstream
 * should see the caller's request, not ours. The answer's body is decoded as fetch decodes it
 * (the bridge drops `content-encoding`), and streamed; aborting the signal ends both ways.
 */
export function nodeUpstreamFetch(request: Request): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url)
    const headers: OutgoingHttpHeaders = {}
    request.headers.forEach((value, name) => (headers[name] = value))
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const outgoing = send(url, { method: request.method, headers }, (answer) =>
      resolve(toResponse(answer, request.method)),
    )
    const stop = () => outgoing.destroy(request.signal.reason)
    if (request.signal.aborted) return stop()
    request.signal.addEventListener('abort', stop, { once: true })
    outgoing.once('close', () => request.signal.removeEventListener('abort', stop))
    outgoing.once('error', reject)
    if (!request.body) return void outgoing.end()
    const body = Readable.fromWeb(request.body as import('node:stream/web').ReadableStream)
    body.once('error', (error) => outgoing.destroy(error))
    body.pipe(outgoing)
  })
}

function toResponse(answer: IncomingMessage, method: string): UpstreamAnswer {
  const headers = new Headers()
  for (let i = 0; i < answer.rawHeaders.length; i += 2) headers.append(answer.rawHeaders[i], answer.rawHeaders[i + 1])
  const status = answer.statusCode ?? 502
  // A status no Response can carry is the bridge's to refuse: it gets one it can read.
  if (status < 200 || status > 599) {
    answer.destroy()
    return { status, statusText: answer.statusMessage ?? '', headers, body: null }
  }
  if (method === 'HEAD' || EMPTY.has(status)) {
    answer.resume()
    return new Response(null, { status, statusText: answer.statusMessage, headers })
  }
  const decode = DECODERS.get(
    String(answer.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase(),
  )
  const source: Readable = decode ? answer.pipe(decode()) : answer
  if (decode) answer.once('error', (error) => source.destroy(error))
  return new Response(Readable.toWeb(source) as ReadableStream<Uint8Array>, {
    status,
    statusText: answer.statusMessage,
    headers,
  })
}
