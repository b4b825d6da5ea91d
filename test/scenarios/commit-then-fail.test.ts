import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const resetRequest = '/api/auth/password-reset/request'

describe.each(runtimes)('commit-then-fail through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('applies the effect, answers 500, and a blind retry duplicates it', async () => {
    const s = await rt.isolated()
    await s.scenarios(['commit-then-fail'])
    const first = await s.as(null).send('POST', resetRequest, { email: 'admin@fleet.test' })
    expect(first.status).toBe(500)
    expect(first.headers.get('x-sandbox-fault')).toBe('commit-then-fail')
    expect(await first.json()).toEqual({
      statusCode: 500,
      message: expect.stringContaining('may have been applied'),
      error: 'Internal Server Error',
    })
    const after = (await s.control.get('/outbox?kind=password-reset')).body.outbox
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ kind: 'password-reset', to: 'admin@fleet.test' })
    // The effect is real: its token works.
    const confirm = await s
      .as(null)
      .send('POST', '/api/auth/password-reset/confirm', { token: after[0].token, password: 'new-password-1' })
    expect(confirm.status).toBe(200)
    // The lesson: retrying blindly sends the e-mail twice.
    expect((await s.as(null).send('POST', resetRequest, { email: 'admin@fleet.test' })).status).toBe(500)
    expect((await s.control.get('/outbox?kind=password-reset')).body.outbox).toHaveLength(2)
  })

  it('leaves reads and refused writes alone', async () => {
    const s = await rt.isolated()
    await s.scenarios(['commit-then-fail'])
    const read = await s.get('/api/notifications')
    expect(read.status).toBe(200)
    expect(read.headers.get('x-sandbox-fault')).toBeNull()
    const bad = await s.as(null).send('POST', resetRequest, { email: 'not-an-email' })
    expect(bad.status).toBe(400)
    expect(bad.headers.get('x-sandbox-fault')).toBeNull()
    expect((await s.control.get('/outbox')).body.outbox).toEqual([])
  })

  it("with timeoutMs holds the answer past the client's time-out, then 504; the effect is there", async () => {
    const s = await rt.isolated()
    await s.scenarios([{ name: 'commit-then-fail', options: { timeoutMs: 200 } }])
    const timedOut = rt.fetch(resetRequest, {
      method: 'POST',
      headers: { ...s.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@fleet.test' }),
      signal: AbortSignal.timeout(200),
    })
    await expect(timedOut).rejects.toThrow()
    const outbox = (await s.control.get('/outbox')).body.outbox
    expect(outbox.filter((e: { kind: string }) => e.kind === 'password-reset')).toHaveLength(1)
    const patient = await s.as(null).send('POST', resetRequest, { email: 'viewer@fleet.test' })
    expect(patient.status).toBe(504)
    expect(patient.headers.get('x-sandbox-fault')).toBe('commit-then-fail')
    expect((await patient.json()).message).toContain('no answer within 200 ms')
    const journal = (await s.control.get('/requests')).body.requests
    expect(journal.at(-1)).toMatchObject({
      method: 'POST',
      path: resetRequest,
      status: 504,
      faults: ['commit-then-fail'],
    })
    expect(journal.at(-1).durationMs).toBeGreaterThanOrEqual(299)
  })
})
