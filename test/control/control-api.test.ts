import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, bearer, json, signIn } from '../support/client.js'
import { NOW, runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const SCENARIOS = [
  'commit-then-fail',
  'degraded',
  'dte-pending',
  'dte-upload-uncertain',
  'empty',
  'error-shapes',
  'forbidden',
  'rate-limit-exhausted',
  'rate-limited',
  'refresh-revoked',
  'session-expired',
  'slow',
  'thread-closed',
  'whatsapp-disconnected',
]

describe.each(runtimes)('control API through $name', (runtime) => {
  const rt = useSandbox(runtime)

  function sandbox() {
    const s = rt.fresh('ctl')
    return { ...s, call: s.control.send }
  }

  it('health: {status, seed, now, scenarios} of the selected sandbox', async () => {
    const s = sandbox()
    const { status, body } = await s.call('GET', '/health')
    expect(status).toBe(200)
    expect(body).toEqual({
      status: 'ok',
      seed: 1,
      now: expect.any(String),
      scenarios: [],
      sandbox: s.headers['x-sandbox-id'],
    })
    expect(Date.parse(body.now)).toBeGreaterThanOrEqual(Date.parse(NOW))
  })

  it('scenarios: all fourteen with description, options (defaults) and whether active', async () => {
    const s = sandbox()
    const { body } = await s.call('GET', '/scenarios')
    expect(body.scenarios.map((x: { name: string }) => x.name).sort()).toEqual(SCENARIOS)
    for (const x of body.scenarios) {
      expect(x).toMatchObject({
        name: expect.any(String),
        description: expect.any(String),
        advice: expect.any(String),
        options: expect.any(Object),
        active: false,
      })
      expect(x.description.length).toBeGreaterThan(20)
    }
    const by = (name: string) => body.scenarios.find((x: { name: string }) => x.name === name)
    expect(by('rate-limited').options).toEqual({ failures: 3, retryAfter: 1 })
    expect(by('rate-limit-exhausted').options).toEqual({ retryAfter: 1 })
    expect(by('slow').options).toEqual({ ms: 1000 })
    expect(by('degraded').options).toEqual({ rate: 0.5 })
    expect(by('session-expired').schema.properties).toHaveProperty('ttl')
    expect(by('commit-then-fail').schema.properties).toHaveProperty('timeoutMs')
  })

  it('PUT scenarios takes names and {name, options}; [] is healthy', async () => {
    const s = sandbox()
    const set = await s.call('PUT', '/scenarios', {
      active: ['empty', { name: 'slow', options: { ms: 300 } }, 'rate-limited;failures=1'],
    })
    expect(set.status).toBe(200)
    const active = set.body.scenarios.filter((x: { active: boolean }) => x.active)
    expect(active.map((x: { name: string; options: object }) => [x.name, x.options])).toEqual([
      ['empty', {}],
      ['rate-limited', { failures: 1, retryAfter: 1 }],
      ['slow', { ms: 300 }],
    ])
    expect((await s.call('GET', '/health')).body.scenarios).toEqual(['empty', 'slow', 'rate-limited'])
    expect((await s.call('PUT', '/scenarios', { active: [] })).status).toBe(200)
    expect((await s.call('GET', '/health')).body.scenarios).toEqual([])
  })

  it.each([
    [{ active: 'slow' }, 'active: must be an array of scenario names or {name, options}'],
    [{}, 'active: must be an array'],
    [{ active: [5] }, 'active.0: each entry must be a scenario name or {name, options}'],
    [{ active: ['slow', 'teleport'] }, 'active.1: unknown scenario "teleport"'],
    [
      { active: [{ name: 'rate-limited', options: { failures: -1 } }] },
      'active.0: rate-limited.options.failures: must be at least 0',
    ],
    [
      { active: [{ name: 'rate-limited', options: { retryAfter: 'soon' } }] },
      'active.0: rate-limited.options.retryAfter: must be a number of seconds or null',
    ],
  ])('PUT scenarios refuses %j with a 400 naming the field, changing nothing', async (body, message) => {
    const s = sandbox()
    await s.call('PUT', '/scenarios', { active: ['empty'] })
    const res = await s.call('PUT', '/scenarios', body)
    expect(res.status).toBe(400)
    expect(res.body.message).toContain(message)
    expect((await s.call('GET', '/health')).body.scenarios).toEqual(['empty'])
  })

  it.each([
    ['PUT', '/scenarios', { active: ['slow'], x: 1 }],
    ['POST', '/reset', { seed: 2, x: 1 }],
    ['POST', '/clock', { advanceBy: '1h', x: 1 }],
    ['POST', '/rewind', { before: 1, x: 1 }],
  ])('%s %s refuses an unknown field with a 400 naming it, changing nothing', async (method, path, body) => {
    const s = sandbox()
    await s.call('PUT', '/scenarios', { active: ['empty'] })
    const clock = (await s.call('POST', '/clock', { freeze: true })).body
    const res = await s.call(method, path, body)
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('body: unknown field x')
    expect((await s.call('GET', '/health')).body).toMatchObject({ scenarios: ['empty'], seed: 1 })
    expect((await s.call('GET', '/clock')).body).toEqual(clock)
  })

  it('reset: fresh data for the same or a new seed; clears sessions, scenarios, clock, journal and outbox', async () => {
    const s = sandbox()
    const token = await signIn(rt, 'admin@fleet.test', s.headers)
    const firstIds = (
      await (await rt.fetch('/api/notifications?limit=5', bearer(token, s.headers))).json()
    ).data.notifications.map((x: { id: string }) => x.id)
    await rt.fetch('/api/auth/password-reset/request', json({ email: 'admin@fleet.test' }, s.headers))
    await s.call('PUT', '/scenarios', { active: ['empty'] })
    await s.call('POST', '/clock', { advanceBy: '40d' })
    const reset = await s.call('POST', '/reset')
    expect(reset.status).toBe(200)
    expect(reset.body).toMatchObject({ status: 'ok', seed: 1, scenarios: [] })
    expect(Date.parse(reset.body.now) - Date.parse(NOW)).toBeLessThan(3_600_000)
    expect((await s.call('GET', '/outbox')).body.outbox).toEqual([])
    expect((await s.call('GET', '/requests')).body.requests).toEqual([])
    expect((await rt.fetch('/api/auth/users/me', bearer(token, s.headers))).status).toBe(401)

    const reseeded = await s.call('POST', '/reset', { seed: 2 })
    expect(reseeded.body.seed).toBe(2)
    const token2 = await signIn(rt, 'admin@fleet.test', s.headers)
    const otherIds = (
      await (await rt.fetch('/api/notifications?limit=5', bearer(token2, s.headers))).json()
    ).data.notifications.map((x: { id: string }) => x.id)
    expect(otherIds).not.toEqual(firstIds)
    expect((await s.call('POST', '/reset')).body.seed).toBe(2)
    const bad = await s.call('POST', '/reset', { seed: -1 })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('seed: must be at least 0')
  })

  it('journal: {id, method, path, status, faults, durationMs, at} newest last, control calls left out; DELETE empties it', async () => {
    const s = sandbox()
    await rt.fetch('/api/auth/users/me', { headers: s.headers })
    await rt.fetch('/api/notification-config/rules?module=fleet', {
      headers: { ...s.headers, 'x-sandbox-scenario': 'slow;ms=1' },
    })
    await s.call('GET', '/health')
    const { body } = await s.call('GET', '/requests')
    expect(body.requests).toHaveLength(2)
    const [a, b] = body.requests
    expect(Object.keys(a).sort()).toEqual(['at', 'durationMs', 'faults', 'id', 'method', 'path', 'query', 'status'])
    expect(a).toMatchObject({ method: 'GET', path: '/api/auth/users/me', status: 401, faults: [] })
    expect(b).toMatchObject({ path: '/api/notification-config/rules', query: '?module=fleet', faults: ['slow'] })
    expect(b.id).toBeGreaterThan(a.id)
    expect((await s.call('DELETE', '/requests')).body).toEqual({ requests: [] })
    expect((await s.call('GET', '/requests')).body.requests).toEqual([])
  })

  it('outbox: entries carry all seven fields; filters by kind and to; DELETE empties it', async () => {
    const s = sandbox()
    await rt.fetch('/api/auth/password-reset/request', json({ email: 'admin@fleet.test' }, s.headers))
    await rt.fetch('/api/auth/password-reset/request', json({ email: 'viewer@fleet.test' }, s.headers))
    const all = (await s.call('GET', '/outbox')).body.outbox
    expect(all).toHaveLength(2)
    expect(Object.keys(all[0]).sort()).toEqual(['at', 'id', 'kind', 'ref', 'subject', 'to', 'token'])
    expect((await s.call('GET', '/outbox?to=viewer@fleet.test')).body.outbox).toEqual([all[1]])
    expect((await s.call('GET', '/outbox?kind=email')).body.outbox).toEqual([])
    const bad = await s.call('GET', '/outbox?kind=fax')
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('kind: must be one of')
    expect((await s.call('DELETE', '/outbox')).body).toEqual({ outbox: [] })
    expect((await s.call('GET', '/outbox')).body.outbox).toEqual([])
  })

  it('agent token: works like a session on backoffice routes, not on service-access, and expires after 1 h of sandbox time', async () => {
    const s = sandbox()
    await s.call('POST', '/clock', { freeze: true })
    const now = (await s.call('GET', '/clock')).body.now
    const issued = await s.call('POST', '/tokens/agent', { email: 'admin@fleet.test' })
    expect(issued.status).toBe(200)
    expect(issued.body).toMatchObject({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      expiresAt: new Date(Math.floor(Date.parse(now) / 1000) * 1000 + 3_600_000).toISOString(),
    })
    const agent = issued.body.token
    expect((await rt.fetch('/api/notifications', bearer(agent, s.headers))).status).toBe(200)
    const me = await (await rt.fetch('/api/auth/users/me', bearer(agent, s.headers))).json()
    expect(me.data.tokenKind).toBe('agent')
    expect((await rt.fetch('/api/auth/service-access', bearer(agent, s.headers))).status).toBe(403)
    await s.call('POST', '/clock', { advanceBy: '59m' })
    expect((await rt.fetch('/api/notifications', bearer(agent, s.headers))).status).toBe(200)
    await s.call('POST', '/clock', { advanceBy: '2m' })
    const expired = await rt.fetch('/api/notifications', bearer(agent, s.headers))
    expect(expired.status).toBe(401)
    expect((await expired.json()).error).toContain('expired')
  })

  it.each([
    [{}, 400, 'email: is required'],
    [{ email: 'nobody' }, 400, 'email: must be a valid e-mail address'],
    [{ email: 'ghost@fleet.test' }, 404, 'email: no user with e-mail ghost@fleet.test'],
  ])('agent token refuses %j', async (body, status, message) => {
    const s = sandbox()
    const res = await s.call('POST', '/tokens/agent', body)
    expect(res.status).toBe(status)
    expect(res.body.message).toContain(message)
  })

  it('serves the control panel page: self-contained HTML calling the same routes', async () => {
    const res = await rt.fetch('/__sandbox')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await res.text()
    for (const path of [
      '"/health"',
      '"/scenarios"',
      '"/clock"',
      '"/reset"',
      '"/requests"',
      '"/outbox"',
      '"/events"',
      '"/requests.har"',
      '"/collections"',
      '"/sandboxes"',
      '"/snapshot"',
      'x-sandbox-id',
      'x-sandbox-control-token',
    ])
      expect(html).toContain(path)
    // Nothing is downloaded at run time: no external script or style, no URL but XML namespaces.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/)
    expect(html.match(/https?:\/\/[^"'\s)]*/g)?.filter((u) => !u.startsWith('http://www.w3.org/')) ?? []).toEqual([])
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1])
    expect(scripts).toHaveLength(2)
    for (const script of scripts) expect(() => new Function(script)).not.toThrow()
  })

  it('serves the panel at /__sandbox/ too, as a person types it (no JSON 404)', async () => {
    const [bare, slash] = await Promise.all([rt.fetch('/__sandbox'), rt.fetch('/__sandbox/')])
    expect([slash.status, slash.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/html/)])
    expect(await slash.text()).toBe(await bare.text())
    // Only the bare path: a trailing slash elsewhere is no route, as the table writes them.
    expect((await rt.fetch('/__sandbox/health/')).status).toBe(404)
  })
})

describe.each(runtimes)('control API guard through $name', (runtime) => {
  describe('with a control token', () => {
    const rt = useSandbox(runtime, { control: { token: 't' } })

    it('with a control token refuses calls without x-sandbox-control-token (401) and accepts them with it', async () => {
      const refused = await rt.fetch('/__sandbox/health')
      expect(refused.status).toBe(401)
      expect((await refused.json()).message).toContain('x-sandbox-control-token')
      expect(
        (await rt.fetch('/__sandbox/clock', json({ advanceBy: '1d' }, { 'x-sandbox-control-token': 'wrong' }))).status,
      ).toBe(401)
      expect((await rt.fetch('/__sandbox/health', { headers: { 'x-sandbox-control-token': 't' } })).status).toBe(200)
      // The page itself holds nothing; its script sends the token.
      expect((await rt.fetch('/__sandbox')).status).toBe(200)
      // The API is not guarded by it.
      expect((await rt.fetch('/api/auth/users/me', bearer(ADMIN_TOKEN))).status).toBe(200)
    })
  })

  describe('with control off', () => {
    const rt = useSandbox(runtime, { control: false })

    it('with control off the routes are gone (404) and the API still works', async () => {
      // msw/node passes a bare /__sandbox through when no route claims it (src/adapters/msw/handlers.ts).
      const paths = [
        '/__sandbox/health',
        '/__sandbox/scenarios',
        '/__sandbox/snapshot',
        ...(runtime.name.startsWith('hono') ? ['/__sandbox'] : []),
      ]
      for (const path of paths) {
        const res = await rt.fetch(path)
        expect(res.status, path).toBe(404)
      }
      expect((await rt.fetch('/__sandbox/reset', json({}))).status).toBe(404)
      expect((await rt.fetch('/api/auth/users/me', bearer(ADMIN_TOKEN))).status).toBe(200)
    })
  })
})

describe.each(runtimes)('journal capacity through $name', (runtime) => {
  const rt = useSandbox(runtime, { journalCapacity: 3 })

  it('is a bounded ring: the newest journalCapacity entries stay', async () => {
    for (let i = 0; i < 5; i++) await rt.fetch(`/api/auth/users/me?i=${i}`)
    const { requests } = await (await rt.fetch('/__sandbox/requests')).json()
    expect(requests.map((r: { query: string }) => r.query)).toEqual(['?i=2', '?i=3', '?i=4'])
    expect(requests.map((r: { id: number }) => r.id)).toEqual([3, 4, 5])
  })
})
