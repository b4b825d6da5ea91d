// A well-behaved client of the API (the spec's "Retry rules" and "Limits"; fleet-sandbox judges it:
// docs/conduct.md). Reads are retried on 429, 500, 502, 503 and 504 with the recommended backoff
// (attempt 2 after 1 s, 3 after 3 s, 4 after 7 s, counted from the first; at least Retry-After),
// at most 4 attempts; 400, 403, 404, 409 and 422 are never retried; a write that may have been
// applied (500, 504, no answer) is checked by a read before it is sent again.

const RETRIED = new Set([429, 500, 502, 503, 504])
const BACKOFF_MS = [1000, 3000, 7000]
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `?careless` on the page: the client a team should not write (retries at once, five times). Shows what the conduct finds. */
const careless = new URLSearchParams(location.search).has('careless')

/** Sends `send()` until an answer that is not retried, keeping the backoff. */
export async function withBackoff(send: () => Promise<Response>): Promise<Response> {
  const first = Date.now()
  for (let attempt = 1; ; attempt++) {
    const res = await send()
    if (!RETRIED.has(res.status) || attempt >= (careless ? 5 : 4)) return res
    if (careless) continue
    const retryAfter = Number(res.headers.get('retry-after') ?? NaN)
    const wait = Number.isFinite(retryAfter) ? retryAfter * 1000 : first + BACKOFF_MS[attempt - 1] - Date.now()
    await sleep(Math.max(0, wait))
  }
}

/**
 * A write that may have been applied when it failed (500, 504, a cut connection): `applied()`
 * reads the resource first, and the write is sent again only when the read says it was not.
 */
export async function writeOnce(
  send: () => Promise<Response>,
  applied: () => Promise<boolean>,
): Promise<Response | undefined> {
  let res: Response | undefined
  try {
    res = await send()
  } catch {
    res = undefined
  }
  if (res && res.status !== 500 && res.status !== 504) return res
  if (!careless && (await applied())) return res
  return send()
}
