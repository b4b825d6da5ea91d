import type { APIRequestContext, APIResponse } from '@playwright/test'

/**
 * How the app under test should call the API (the spec's "Retry rules" and "Limits"), which
 * fleet-sandbox judges (docs/conduct.md): reads retried on 429, 500, 502, 503 and 504 with the
 * recommended backoff, counted from the first attempt (1 s, 3 s, 7 s; at least Retry-After), 4
 * attempts at most; 400, 403, 404, 409 and 422 never retried; a write with external effects
 * that failed ambiguously (500, 504, no answer) checked by a read before it is sent again.
 */
const RETRIED = new Set([429, 500, 502, 503, 504])
const BACKOFF_MS = [1000, 3000, 7000]
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function readWithBackoff(send: () => Promise<APIResponse>): Promise<APIResponse> {
  const first = Date.now()
  for (let attempt = 1; ; attempt++) {
    const res = await send()
    if (!RETRIED.has(res.status()) || attempt >= 4) return res
    const retryAfter = Number(res.headers()['retry-after'] ?? NaN)
    const wait = Number.isFinite(retryAfter) ? retryAfter * 1000 : first + BACKOFF_MS[attempt - 1] - Date.now()
    await sleep(Math.max(0, wait))
  }
}

/** A write with external effects: after an ambiguous failure, `applied()` reads the resource; sent again only when it was not. */
export async function writeOnce(
  send: () => Promise<APIResponse>,
  applied: () => Promise<boolean>,
): Promise<{ response?: APIResponse; applied: boolean; resent: boolean }> {
  let response: APIResponse | undefined
  try {
    response = await send()
  } catch {
    response = undefined
  }
  if (response && response.status() !== 500 && response.status() !== 504)
    return { response, applied: response.ok(), resent: false }
  if (await applied()) return { response, applied: true, resent: false }
  const again = await send()
  return { response: again, applied: again.ok(), resent: true }
}

/** The thread's messages, read with the backoff. */
export async function messagesOf(request: APIRequestContext, token: string, threadId: string) {
  const res = await readWithBackoff(() =>
    request.get(`/api/omnichannel/threads/${threadId}/messages`, { headers: { authorization: `Bearer ${token}` } }),
  )
  return (await res.json()).data as { text: string }[]
}
