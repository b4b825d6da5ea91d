import { describe, expect, it } from 'vitest'
import type { Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

type Finding = { rule: string; message: string; operationId: string; requests: number[]; spec: string }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The world's conduct, asserted answered. */
async function conduct(s: Client): Promise<{ findings: Finding[]; coverage: any[] }> {
  const res = await s.control.get('/conduct')
  expect(res.status, await res.text()).toBe(200)
  return res.body
}

/** The ids of the journal's entries of the API, oldest first, with their marks. */
async function journal(s: Client): Promise<{ id: number; status: number; conduct?: string[] }[]> {
  return (await s.control.get('/requests')).body.requests
}

/** An open thread no one else holds: the admin may send on it. */
async function openThread(s: Client): Promise<string> {
  const list = (await s.get('/api/omnichannel/threads')).body.data as {
    id: string
    status: string
    assignedTo: unknown
  }[]
  return list.find((t) => t.status !== 'closed' && !t.assignedTo)!.id
}

describe.each(runtimes)("the app's conduct through $name", (runtime) => {
  const rt = useSandbox(runtime)

  it('retried-refusal: a 404 sent again is a finding citing Retry rules 2, its entry marked; not resending is none', async () => {
    const s = await rt.isolated('admin@fleet.test', 'refusal')
    expect((await s.get('/api/v1/technician/get/nope')).status).toBe(404)
    expect((await s.get('/api/v1/technician/get/nope')).status).toBe(404)
    const { findings } = await conduct(s)
    const ids = (await journal(s)).filter((e) => e.status === 404)
    expect(findings).toEqual([
      {
        rule: 'retried-refusal',
        message: expect.stringMatching(
          /^GET \/api\/v1\/technician\/get\/nope was sent again \(attempt 2\) after its 404.*Should: never resend/,
        ),
        operationId: 'getTechnician',
        requests: ids.map((e) => e.id),
        spec: 'Retry rules 2',
      },
    ])
    expect(ids.at(-1)!.conduct).toEqual(['retried-refusal'])
    expect(ids[0].conduct).toBeUndefined()

    const right = await rt.isolated('admin@fleet.test', 'refusal-ok')
    expect((await right.get('/api/v1/technician/get/nope')).status).toBe(404)
    expect((await right.get('/api/v1/technician/list')).status).toBe(200)
    expect((await conduct(right)).findings).toEqual([])
  })

  it('retried-write-blindly: a write with effects sent again after its 500; a read in between, or no resend, is none', async () => {
    const s = await rt.isolated('admin@fleet.test', 'blind')
    const threadId = await openThread(s)
    await s.scenarios(['commit-then-fail'])
    const body = { threadId, text: 'Su camión llega a las 15:00' }
    expect((await s.send('POST', '/api/omnichannel/send', body)).status).toBe(500)
    expect((await s.send('POST', '/api/omnichannel/send', body)).status).toBe(500)
    const { findings } = await conduct(s)
    expect(findings.map((f) => [f.rule, f.operationId, f.spec])).toEqual([
      ['retried-write-blindly', 'sendOmnichannelMessage', 'Retry rules 3'],
    ])
    expect(findings[0].message).toMatch(/no read of its resource in between.*Should: after a 500/)

    const right = await rt.isolated('admin@fleet.test', 'blind-ok')
    const other = await openThread(right)
    await right.scenarios(['commit-then-fail'])
    const message = { threadId: other, text: 'Hola' }
    expect((await right.send('POST', '/api/omnichannel/send', message)).status).toBe(500)
    // The read shows the message went through: not sent again.
    const read = await right.get(`/api/omnichannel/threads/${other}/messages`)
    expect(read.body.data.at(-1).text).toBe('Hola')
    expect((await conduct(right)).findings).toEqual([])
    // A resend after the read is the app's decision, not a blind one.
    expect((await right.send('POST', '/api/omnichannel/send', message)).status).toBe(500)
    expect((await conduct(right)).findings).toEqual([])
  })

  it('too-many-attempts: a fifth attempt in a row; four are none', async () => {
    const s = await rt.isolated('admin@fleet.test', 'many')
    // Retry-After 0: no wait asked, so only the count is judged.
    await s.scenarios([{ name: 'rate-limit-exhausted', options: { retryAfter: 0 } }])
    for (let i = 0; i < 4; i++) expect((await s.get('/api/vehicle-types')).status).toBe(429)
    expect((await conduct(s)).findings).toEqual([])
    expect((await s.get('/api/vehicle-types')).status).toBe(429)
    const { findings } = await conduct(s)
    expect(findings.map((f) => [f.rule, f.spec, f.requests.length])).toEqual([
      ['too-many-attempts', 'Limits Recommended backoff', 5],
    ])
  })

  it('retried-too-soon: a retry before the backoff or Retry-After; the backoff kept is none', async () => {
    const s = await rt.isolated('admin@fleet.test', 'soon')
    await s.scenarios([{ name: 'rate-limited', options: { failures: 1, retryAfter: null } }])
    expect((await s.get('/api/vehicle-types')).status).toBe(429)
    expect((await s.get('/api/vehicle-types')).status).toBe(200)
    const { findings } = await conduct(s)
    expect(findings.map((f) => [f.rule, f.spec])).toEqual([['retried-too-soon', 'Limits Recommended backoff']])
    expect(findings[0].message).toMatch(/the backoff allows it after 1 s/)

    const after = await rt.isolated('admin@fleet.test', 'after')
    await after.scenarios([{ name: 'rate-limited', options: { failures: 1, retryAfter: 2 } }])
    expect((await after.get('/api/vehicle-types')).status).toBe(429)
    await sleep(1100)
    expect((await after.get('/api/vehicle-types')).status).toBe(200)
    const late = (await conduct(after)).findings
    expect(late.map((f) => f.rule)).toEqual(['retried-too-soon'])
    expect(late[0].message).toMatch(/before the 2 s its Retry-After asked/)

    const right = await rt.isolated('admin@fleet.test', 'soon-ok')
    await right.scenarios([{ name: 'rate-limited', options: { failures: 1, retryAfter: null } }])
    expect((await right.get('/api/vehicle-types')).status).toBe(429)
    await sleep(1000)
    expect((await right.get('/api/vehicle-types')).status).toBe(200)
    expect((await conduct(right)).findings).toEqual([])
  })

  it('a write refused before its body was read (429 at the gateway) and sent again is the same request', async () => {
    const s = rt.fresh('unread')
    await s.scenarios([{ name: 'rate-limited', options: { failures: 1, retryAfter: null } }])
    const signIn = () => s.post('/api/session-auth/sign-in/email', { email: 'admin@fleet.test', password: 'sandbox' })
    expect((await signIn()).status).toBe(429)
    expect((await signIn()).status).toBe(200)
    expect((await conduct(s)).findings.map((f) => [f.rule, f.operationId])).toEqual([
      ['retried-too-soon', 'signInEmail'],
    ])
  })

  it('looped-on-401: the refused token sent again; a new sign-in after the 401 is none', async () => {
    const s = await rt.isolated('admin@fleet.test', 'loop')
    await s.scenarios(['session-expired'])
    expect((await s.get('/api/notifications')).status).toBe(401)
    expect((await s.get('/api/notifications')).status).toBe(401)
    const { findings } = await conduct(s)
    expect(findings.map((f) => [f.rule, f.operationId, f.spec])).toEqual([
      ['looped-on-401', 'listNotifications', 'Authentication 4'],
    ])

    const right = await rt.isolated('admin@fleet.test', 'loop-ok')
    await right.scenarios(['session-expired'])
    expect((await right.get('/api/notifications')).status).toBe(401)
    const again = await right.user('admin@fleet.test')
    expect((await again.get('/api/notifications')).status).toBe(200)
    expect((await conduct(right)).findings).toEqual([])
  })

  it('reused-refresh-token: a refused refresh token presented again; a new sign-in and its own refresh token is none', async () => {
    const s = rt.fresh('refresh')
    const agent = async () => {
      const res = await s.control.post('/tokens/agent', { email: 'admin@fleet.test', refresh: true })
      expect(res.ok, await res.text()).toBe(true)
      return res.body.refreshToken as string
    }
    const refresh = (token: string) =>
      rt.fetch('/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-sandbox-id': s.id! },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: 'sandbox-shortcut' }),
      })
    const first = await agent()
    await s.scenarios(['refresh-revoked'])
    expect((await refresh(first)).status).toBe(400)
    expect((await conduct(s)).findings).toEqual([])
    expect((await refresh(first)).status).toBe(400)
    const { findings } = await conduct(s)
    // The refusal of the same request is said once, by the rule that names it.
    expect(findings.map((f) => [f.rule, f.operationId, f.spec, f.requests.length])).toEqual([
      ['reused-refresh-token', 'oauthToken', 'Authentication 8', 2],
    ])

    const right = rt.fresh('refresh-ok')
    const again = async () => {
      const res = await right.control.post('/tokens/agent', { email: 'admin@fleet.test', refresh: true })
      return res.body.refreshToken as string
    }
    const refreshRight = (token: string) =>
      rt.fetch('/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-sandbox-id': right.id! },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: 'sandbox-shortcut' }),
      })
    const old = await again()
    await right.scenarios(['refresh-revoked'])
    expect((await refreshRight(old)).status).toBe(400)
    // Done right: both tokens dropped, a new sign-in, its own refresh token.
    await right.scenarios([])
    expect((await refreshRight(await again())).status).toBe(200)
    expect((await conduct(right)).findings).toEqual([])
  })

  it('coverage: statuses met with a request, those the document lists unmet, and the scenarios that apply', async () => {
    const s = await rt.isolated('admin@fleet.test', 'coverage')
    await s.scenarios([{ name: 'rate-limited', options: { failures: 1 } }])
    expect((await s.get('/api/vehicle-types')).status).toBe(429)
    const { coverage } = await conduct(s)
    const entries = await journal(s)
    const types = coverage.find((c) => c.operationId === 'listVehicleTypes')
    expect(types.met).toEqual([{ status: 429, request: entries.at(-1)!.id }])
    expect(types.unmet).toEqual(expect.arrayContaining([200, 401, 500]))
    expect(types.unmet).not.toContain(429)
    expect(types.scenarios.met).toEqual([{ name: 'rate-limited', request: entries.at(-1)!.id }])
    expect(types.scenarios.unmet).toEqual(expect.arrayContaining(['degraded', 'session-expired', 'slow']))
    expect(types.scenarios.unmet).not.toContain('commit-then-fail')
    // The sign-in is an operation the app called.
    expect(coverage.find((c) => c.operationId === 'signInEmail').met).toEqual([{ status: 200, request: 1 }])
    // A reset clears it with the world.
    expect((await s.control.post('/reset', {})).status).toBe(200)
    expect(await conduct(s)).toEqual({ findings: [], coverage: [] })
  })
})
