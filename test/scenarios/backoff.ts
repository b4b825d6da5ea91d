/** The spec's recommended backoff (Limits): attempt 1 at once, then after 1 s, 3 s and 7 s; 4 attempts at most. */
export const SPEC_SCHEDULE_MS = [0, 1000, 3000, 7000]

/** Retry rule 1: side-effect-free reads are retried on 429, 500, 502, 503 and 504. */
const RETRYABLE = new Set([429, 500, 502, 503, 504])

export interface BackoffResult {
  response: Response
  attempts: number
  /** What the client waited before each retry, in milliseconds. */
  waits: number[]
  statuses: number[]
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now; undefined when absent. */
function retryAfterMs(response: Response, now: number): number | undefined {
  const value = response.headers.get('retry-after')
  if (value === null) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * A read as a well-behaved client sends it: the spec's schedule, never sooner than Retry-After.
 * `sleep` is injected so tests check the schedule without waiting 11 s.
 */
export async function readWithBackoff(
  send: () => Promise<Response>,
  sleep: (ms: number) => Promise<void>,
  schedule = SPEC_SCHEDULE_MS,
): Promise<BackoffResult> {
  const waits: number[] = []
  const statuses: number[] = []
  for (let attempt = 1; ; attempt++) {
    const response = await send()
    statuses.push(response.status)
    if (!RETRYABLE.has(response.status) || attempt >= schedule.length)
      return { response, attempts: attempt, waits, statuses }
    await response.arrayBuffer()
    const wait = Math.max(schedule[attempt], retryAfterMs(response, Date.now()) ?? 0)
    waits.push(wait)
    await sleep(wait)
  }
}

/** A sleep that only records: the sandbox's rate limit counts attempts, not time. */
export const recordedSleep = () => {
  const slept: number[] = []
  return { slept, sleep: async (ms: number) => void slept.push(ms) }
}
