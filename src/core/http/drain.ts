import { bodyRead } from './body.js'

/**
 * An answer given before the request body was read (413, 415, 403, 404, 405, a route that takes
 * no body) leaves the rest of the body on the connection. A client that reuses connections
 * (browsers, undici, Playwright) sends its next request after it, so the body is read to its
 * end and dropped before the answer leaves; past DRAIN_LIMIT bytes, or when the client stops
 * sending for DRAIN_STALL_MS, the answer says `connection: close` and the connection ends.
 */
export const DRAIN_LIMIT = 64 * 1_048_576
export const DRAIN_STALL_MS = 2_000

/** Reads what the pipeline left of the body; false when the connection cannot carry another request. */
export async function drainBody(request: Request, limit = DRAIN_LIMIT, stallMs = DRAIN_STALL_MS): Promise<boolean> {
  if (request.method === 'GET' || request.method === 'HEAD' || bodyRead(request) || !request.body) return true
  if (request.body.locked) return false
  const reader = request.body.getReader()
  let size = 0
  let stop = () => undefined as void
  try {
    for (;;) {
      const stalled = new Promise<undefined>((resolve) => {
        const timer = setTimeout(resolve, stallMs)
        stop = () => clearTimeout(timer)
      })
      const chunk = await Promise.race([reader.read(), stalled])
      stop()
      if (!chunk) break
      if (chunk.done) return true
      size += chunk.value.byteLength
      if (size > limit) break
    }
  } catch {
    // A body cut off by the client: its connection is gone anyway.
  } finally {
    stop()
  }
  void reader.cancel().catch(() => undefined)
  return false
}

/** The answer once the body is drained; with `connection: close` when it could not be. */
export async function afterBody(
  request: Request,
  answer: Response | Promise<Response>,
  limit = DRAIN_LIMIT,
): Promise<Response> {
  const response = await answer
  if (await drainBody(request, limit)) return response
  try {
    response.headers.set('connection', 'close')
    return response
  } catch {
    // Immutable headers (a response from fetch): a copy takes the header.
    const copy = new Response(response.body, response)
    copy.headers.set('connection', 'close')
    return copy
  }
}
