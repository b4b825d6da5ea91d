import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { setupSandboxServer } from '../../src/adapters/node/index.js'
import { at, client, signIn as signInAs } from '../support/client.js'

const API = 'http://api.fleet.test'
const api = at(API)
const signIn = (headers: Record<string, string> = {}) => signInAs(api, 'admin@fleet.test', headers)
const unreviewed = async (token: string, headers: Record<string, string> = {}) => {
  const { body } = await client(api, { token, headers }).get('/api/notifications?status=unreviewed&limit=1')
  return { count: body.data.unreviewedCount as number, first: body.data.notifications[0]?.id as string }
}
const review = (token: string, id: string, headers: Record<string, string> = {}) =>
  client(api, { token, headers }).send('PATCH', `/api/notifications/${id}`, { status: 'reviewed' })

describe('setupSandboxServer: the vitest recipe (beforeAll listen, afterEach reset, afterAll close)', () => {
  const sandbox = setupSandboxServer({ seed: 7, now: '2026-11-22T12:00:00.000Z' })
  beforeAll(sandbox.listen)
  afterEach(sandbox.reset)
  afterAll(sandbox.close)
  let initial: number

  it('answers the API on any origin and journals the requests', async () => {
    const token = await signIn()
    initial = (await unreviewed(token)).count
    expect(initial).toBeGreaterThan(0)
    const paths = sandbox
      .sandbox()
      .journal.list()
      .map((e) => `${e.method} ${e.path} ${e.status}`)
    expect(paths).toEqual(['POST /api/session-auth/sign-in/email 200', 'GET /api/notifications 200'])
  })

  it('answers only the routes it serves on an origin not named: other /api/... calls reach the network', async () => {
    // A third-party SDK in the test process (an error reporter posting to /api/456/envelope/).
    const sdk = createServer((req, res) => res.end(`sdk host: ${req.method} ${req.url}`))
    await new Promise<void>((resolve) => sdk.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(sdk.address() as AddressInfo).port}`
    try {
      expect(await (await fetch(`${url}/api/456/envelope/`, { method: 'POST', body: 'envelope' })).text()).toBe(
        'sdk host: POST /api/456/envelope/',
      )
      expect(await (await fetch(`${url}/api/notifications`, { method: 'DELETE' })).text()).toBe(
        'sdk host: DELETE /api/notifications',
      )
      expect((await fetch(`${url}/api/notifications`)).status).toBe(401)
    } finally {
      await new Promise((resolve) => sdk.close(resolve))
    }
  })

  it('keeps writes within a test', async () => {
    const token = await signIn()
    const { count, first } = await unreviewed(token)
    expect(count).toBe(initial)
    expect((await review(token, first)).status).toBe(200)
    expect((await unreviewed(token)).count).toBe(initial - 1)
  })

  it('starts the next test from the configured world (reset: records, sessions, journal)', async () => {
    expect(sandbox.sandbox().journal.list()).toEqual([])
    expect(sandbox.sandbox().seed).toBe(7)
    const token = await signIn()
    expect((await unreviewed(token)).count).toBe(initial)
  })

  it('use() turns scenarios on for this test only, with options', async () => {
    sandbox.use({ name: 'rate-limited', options: { failures: 1, retryAfter: 2 } })
    const first = await fetch(`${API}/__sandbox/health`)
    expect(first.status).toBe(200) // control routes are never shaped by scenarios
    const limited = await fetch(`${API}/api/session-auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('2')
    expect(limited.headers.get('x-sandbox-fault')).toBe('rate-limited')
    expect(sandbox.sandbox().active.map((a) => a.name)).toEqual(['rate-limited'])
  })

  it('is healthy again after the reset', async () => {
    expect(sandbox.sandbox().active).toEqual([])
    await signIn()
  })

  it('use() names an unknown scenario or a bad option', () => {
    // @ts-expect-error: not a scenario name (checked at run time too, for JavaScript callers)
    expect(() => sandbox.use('no-such-thing')).toThrow(/use\.0: unknown scenario "no-such-thing"/)
    expect(() => sandbox.use({ name: 'rate-limited', options: { failures: -1 } })).toThrow(
      /use\.0: rate-limited\.options\.failures/,
    )
    expect(sandbox.sandbox().active).toEqual([])
  })

  it('isolates x-sandbox-id worlds from the default and from each other', async () => {
    const a = { 'x-sandbox-id': 'worker-a' }
    const b = { 'x-sandbox-id': 'worker-b' }
    const tokenA = await signIn(a)
    const tokenB = await signIn(b)
    const before = await unreviewed(tokenA, a)
    expect((await review(tokenA, before.first, a)).status).toBe(200)
    expect((await unreviewed(tokenA, a)).count).toBe(before.count - 1)
    expect((await unreviewed(tokenB, b)).count).toBe(before.count)
    expect((await unreviewed(await signIn())).count).toBe(initial)
    const journalA = (await sandbox.isolated('worker-a')).journal.list()
    expect(journalA.map((e) => e.method)).toEqual(['POST', 'GET', 'PATCH', 'GET'])
  })

  it('drops the isolated worlds at reset', () => {
    expect(sandbox.app.sandboxes.ids()).toEqual([])
  })

  it('lets a test add its own msw handlers, dropped at reset', async () => {
    const { http, HttpResponse } = await import('msw')
    sandbox.server.use(http.get(`${API}/api/auth/users/me`, () => HttpResponse.json({ mine: true })))
    expect(await (await fetch(`${API}/api/auth/users/me`)).json()).toEqual({ mine: true })
  })

  it('answers with the sandbox again after the reset', async () => {
    expect((await fetch(`${API}/api/auth/users/me`)).status).toBe(401)
  })
})

describe('setupSandboxServer with origins and startup scenarios', () => {
  const sandbox = setupSandboxServer({
    origins: [API],
    scenario: 'rate-limited;failures=1',
    onUnhandledRequest: 'bypass',
  })
  let real: ReturnType<typeof createServer>
  let realUrl: string
  beforeAll(async () => {
    await sandbox.listen()
    real = createServer((_req, res) => res.end('the real server'))
    await new Promise<void>((resolve) => real.listen(0, '127.0.0.1', resolve))
    realUrl = `http://127.0.0.1:${(real.address() as AddressInfo).port}`
  })
  afterEach(sandbox.reset)
  afterAll(async () => {
    sandbox.close()
    await new Promise((resolve) => real.close(resolve))
  })

  it('answers only its origins: other requests reach the network', async () => {
    expect(await (await fetch(`${realUrl}/api/notifications`)).text()).toBe('the real server')
    expect((await fetch(`${API}/__sandbox/health`)).status).toBe(200)
  })

  it('applies the configured scenarios at start and again after every reset', async () => {
    expect(sandbox.sandbox().active).toEqual([{ name: 'rate-limited', options: { failures: 1, retryAfter: 1 } }])
    sandbox.use()
    expect(sandbox.sandbox().active).toEqual([])
  })

  it('still has them after the reset', async () => {
    expect(sandbox.sandbox().active.map((a) => a.name)).toEqual(['rate-limited'])
    const first = await fetch(`${API}/api/auth/users/me`)
    expect(first.status).toBe(429)
    expect((await fetch(`${API}/api/auth/users/me`)).status).toBe(401)
  })
})

describe('setupSandboxServer before listen', () => {
  it('says to call listen first', () => {
    const sandbox = setupSandboxServer()
    expect(() => sandbox.sandbox()).toThrow(/call `await listen\(\)` first/)
    // @ts-expect-error: not a scenario name
    expect(() => setupSandboxServer({ scenario: 'nope' })).toThrow(/scenario: unknown scenario "nope"/)
  })
})
