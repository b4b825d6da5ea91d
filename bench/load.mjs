import autocannon from 'autocannon'
import { cpuMs } from './processes.mjs'

/**
 * One bounded autocannon run (after a short warm-up whose figures are dropped):
 * req/s of answered requests, p50 and p99 latency in ms, any non-2xx or socket errors, and,
 * given the server's `pid`, the server's CPU time per request (steadier than req/s on a
 * shared machine).
 */
export async function load({
  url,
  path,
  connections,
  seconds,
  warmupSeconds,
  headers = {},
  method = 'GET',
  body,
  setupRequest,
  pid,
}) {
  // autocannon mutates its request objects: a fresh one per run; no undefined keys (they override its defaults).
  const request = () =>
    Object.fromEntries(Object.entries({ method, path, headers, body, setupRequest }).filter(([, v]) => v !== undefined))
  const run = (duration) => autocannon({ url, connections, duration, timeout: 10, requests: [request()] })
  if (warmupSeconds) await run(warmupSeconds)
  const cpuBefore = pid ? cpuMs(pid) : null
  const r = await run(seconds)
  const cpuAfter = pid ? cpuMs(pid) : null
  const answered = r['2xx'] + r.non2xx
  return {
    rps: Math.round(answered / r.duration),
    cpuUsPerRequest:
      cpuBefore !== null && cpuAfter !== null && answered
        ? Math.round(((cpuAfter - cpuBefore) * 1000) / answered)
        : null,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: answered,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    connections,
    seconds: r.duration,
  }
}

/**
 * Loads each side (`{runs: []}` and more) once a round, one after the other, the order
 * alternating, so the machine's drift over the run falls on every side; `run(side)` answers the
 * figures pushed to `side.runs`, `after(round)` is told once a round.
 */
export async function alternating(sides, rounds, run, after) {
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) side.runs.push(await run(side, round))
    after?.(round)
  }
}

/** Latency percentile of an unsorted sample of ms figures. */
export function percentile(sample, p) {
  if (!sample.length) return null
  const sorted = Float64Array.from(sample).sort()
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

export const median = (xs) => percentile(xs, 50)

/** Milliseconds until one request's whole answer arrived; anything but 200 is an error. */
export async function timed(url, headers) {
  const t = performance.now()
  const res = await fetch(url, { headers })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`)
  return performance.now() - t
}
