import { describe, expect, it } from 'vitest'
import { bearer } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { readWithBackoff, recordedSleep } from './backoff.js'

describe.each(runtimes)('rate-limited and rate-limit-exhausted through $name', (runtime) => {
  const rt = useSandbox(runtime)

  /** Each test gets its own isolated sandbox, signed in before any scenario is on. */
  async function sandbox(active: unknown[]) {
    const s = await rt.isolated('admin@fleet.test', 'rate')
    await s.scenarios(active)
    // Raw responses: the backoff client reads Retry-After and drains bodies itself.
    const read =
      (path = '/api/notifications', extra: Record<string, string> = {}) =>
      () =>
        rt.fetch(path, bearer(s.token!, { ...s.headers, ...extra }))
    return { ...s, read }
  }

  it('a client with the spec schedule succeeds on its 4th attempt after 1 s, 3 s and 7 s', async () => {
    const s = await sandbox(['rate-limited'])
    const first = await s.read()()
    expect(first.status).toBe(429)
    expect(first.headers.get('retry-after')).toBe('1')
    expect(first.headers.get('x-sandbox-fault')).toBe('rate-limited')
    const body = await first.json()
    expect(body).toEqual({
      statusCode: 429,
      message: expect.stringContaining('rate limit'),
      error: 'Too Many Requests',
    })

    const s2 = await sandbox(['rate-limited'])
    const { sleep, slept } = recordedSleep()
    const result = await readWithBackoff(s2.read(), sleep)
    expect(result.statuses).toEqual([429, 429, 429, 200])
    expect(result.attempts).toBe(4)
    expect(slept).toEqual([1000, 3000, 7000])
    expect((await result.response.json()).status).toBe('success')
    const journal = (await s2.control.get('/requests')).body.requests
    expect(journal.map((e: { status: number }) => e.status)).toEqual([200, 429, 429, 429, 200])
    expect(journal.at(-2).faults).toEqual(['rate-limited'])
    expect(journal.at(-1).faults).toEqual([])
  })

  it('honours a longer Retry-After, and with retryAfter null sends none', async () => {
    const s = await sandbox([{ name: 'rate-limited', options: { retryAfter: 5 } }])
    const { sleep, slept } = recordedSleep()
    const result = await readWithBackoff(s.read(), sleep)
    expect(result.response.status).toBe(200)
    expect(slept).toEqual([5000, 5000, 7000])

    const quiet = await sandbox([{ name: 'rate-limited', options: { retryAfter: null, failures: 1 } }])
    const res = await quiet.read()()
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBeNull()
    expect((await quiet.read()()).status).toBe(200)
  })

  it('counts each method, path and caller apart', async () => {
    const s = await sandbox([{ name: 'rate-limited', options: { failures: 1 } }])
    expect((await s.read()()).status).toBe(429)
    expect((await s.read()()).status).toBe(200)
    expect((await s.read()()).status).toBe(200)
    // Another path, the same caller.
    expect((await s.read('/api/auth/users/me')()).status).toBe(429)
    // The same path, another caller (its own token), signed in through the limit.
    const other = await rt.fetch('/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { ...s.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'operator@fleet.test', password: 'sandbox' }),
    })
    expect(other.status).toBe(429)
    const again = await rt.fetch('/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { ...s.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'operator@fleet.test', password: 'sandbox' }),
    })
    expect(again.status).toBe(200)
    const token = again.headers.get('set-auth-token')!
    expect((await rt.fetch('/api/notifications', bearer(token, s.headers))).status).toBe(429)
    expect((await rt.fetch('/api/notifications', bearer(token, s.headers))).status).toBe(200)
  })

  it('switched per request with x-sandbox-scenario, options after a semicolon', async () => {
    const s = await sandbox([])
    const header = { 'x-sandbox-scenario': 'rate-limited;failures=2;retryAfter=3' }
    const { sleep, slept } = recordedSleep()
    const result = await readWithBackoff(s.read('/api/notifications', header), sleep)
    expect(result.statuses).toEqual([429, 429, 200])
    expect(slept).toEqual([3000, 3000])
    // Without the header the sandbox is healthy.
    expect((await s.read('/api/auth/users/me')()).status).toBe(200)
  })

  it('rate-limit-exhausted: the client gives up after the 4th attempt', async () => {
    const s = await sandbox(['rate-limit-exhausted'])
    const { sleep, slept } = recordedSleep()
    const result = await readWithBackoff(s.read(), sleep)
    expect(result.statuses).toEqual([429, 429, 429, 429])
    expect(result.attempts).toBe(4)
    expect(slept).toEqual([1000, 3000, 7000])
    expect(result.response.headers.get('x-sandbox-fault')).toBe('rate-limit-exhausted')
    expect(await result.response.json()).toEqual({
      statusCode: 429,
      message: expect.stringContaining('exhausted'),
      error: 'Too Many Requests',
    })
    // Still refused later: it never recovers while on.
    expect((await s.read()()).status).toBe(429)
  })
})
