import { beforeAll, describe, expect, it } from 'vitest'
import { bearer, freshId, signIn } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('bad input through $name', (runtime) => {
  const rt = useSandbox(runtime)
  // One world of its own for the block (docs/testing.md): bad input changes nothing, and these
  // tests prove it there, while the default sandbox is only read.
  const sid = freshId('bad-input')
  const send = (path: string, init: RequestInit = {}) =>
    rt.fetch(path, { ...init, headers: { 'x-sandbox-id': sid, ...(init.headers as Record<string, string>) } })
  let token: string
  beforeAll(async () => {
    token = await signIn(rt, 'admin@fleet.test', { 'x-sandbox-id': sid })
  })

  const signInRaw = (body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    send('/api/session-auth/sign-in/email', { method: 'POST', headers, body })

  it.each([
    ['bad JSON', '{"email":', 'body: must be valid JSON'],
    ['a JSON array', '[]', 'body: must be an object'],
    ['wrong types', '{"email": 42, "password": true}', 'email: must be a string'],
    ['an empty body', '', 'body: is required'],
  ])('%s is a 400 naming the field', async (_, body, message) => {
    const res = await signInRaw(body)
    expect(res.status).toBe(400)
    expect((await res.json()).message).toContain(message)
  })

  it('a body nested 5,000 levels deep is a 400 naming the rule, journaled without its body', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`
    const res = await signInRaw(`{"email":"admin@fleet.test","password":"sandbox","x":${deep}}`)
    expect(res.status).toBe(400)
    expect((await res.json()).message).toBe('body: must nest at most 100 levels of lists and objects')
    // 100 levels are still a body: the route itself answers (here: the unknown field).
    const within = await signInRaw(
      `{"email":"admin@fleet.test","password":"sandbox","x":${'['.repeat(99)}${']'.repeat(99)}}`,
    )
    expect(await within.text()).not.toContain('levels')
    const { requests } = await (await send('/__sandbox/requests')).json()
    const entry = requests.filter((e: { path: string }) => e.path === '/api/session-auth/sign-in/email').at(-2)
    expect(entry).toMatchObject({ method: 'POST', status: 400 })
    const full = await (await send(`/__sandbox/requests/${entry.id}`)).json()
    expect(full.request.body ?? null).toBeNull()
  })

  it('a non-JSON content type is 415', async () => {
    const res = await signInRaw('email=a', { 'content-type': 'application/x-www-form-urlencoded' })
    expect(res.status).toBe(415)
  })

  it('a body over 1 MB is 413 and changes nothing', async () => {
    const before = (await rt.client(null, sid).control.get('/requests')).body
    const big = JSON.stringify({ email: 'admin@fleet.test', password: 'x'.repeat(1_048_576) })
    const res = await signInRaw(big)
    expect(res.status).toBe(413)
    expect((await res.json()).message).toContain('1048576 bytes')
    const id = (await (await send('/api/notifications?limit=1', bearer(token))).json()).data.notifications[0].id
    const patch = await send(`/api/notifications/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'reviewed', pad: 'x'.repeat(1_100_000) }),
    })
    expect(patch.status).toBe(413)
    const after = (await (await send('/api/notifications?limit=1', bearer(token))).json()).data.notifications[0]
    expect(after.id).toBe(id)
    expect(after.status).toBe('unreviewed')
    expect((await rt.client(null, sid).control.get('/requests')).body.requests.length).toBeGreaterThan(
      before.requests.length,
    )
  })

  it('exactly 1 MB is still accepted', async () => {
    const pad = 'x'.repeat(1_048_576 - JSON.stringify({ email: 'admin@fleet.test', password: '' }).length)
    const res = await signInRaw(JSON.stringify({ email: 'admin@fleet.test', password: pad }))
    expect(res.status).toBe(401)
  })

  it('unknown routes are 404 JSON, wrong methods 405 with Allow', async () => {
    const unknown = await send('/api/nope', bearer(token))
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('content-type')).toContain('application/json')
    expect((await unknown.json()).message).toContain('/api/nope')
    const wrong = await send('/api/notifications', { method: 'PUT', headers: { authorization: `Bearer ${token}` } })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('GET')
    expect((await send('/__sandbox/nope')).status).toBe(404)
  })

  it('a broken id pattern is 400, an unknown one 404', async () => {
    const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const bad = await send('/api/notifications/xyz', { method: 'PATCH', headers: h, body: '{"status":"reviewed"}' })
    expect(bad.status).toBe(400)
    expect((await bad.json()).error).toContain('id: must be 24 hexadecimal characters')
    const unknown = await send(`/api/notifications/${'a'.repeat(24)}`, {
      method: 'PATCH',
      headers: h,
      body: '{"status":"reviewed"}',
    })
    expect(unknown.status).toBe(404)
    const badEnum = await send(`/api/notifications/${'a'.repeat(24)}`, {
      method: 'PATCH',
      headers: h,
      body: '{"status":"done"}',
    })
    expect(badEnum.status).toBe(400)
    expect((await badEnum.json()).error).toContain('status: must be one of "unreviewed", "reviewed", "false_positive"')
  })

  it('a bad x-sandbox-id is a 400 naming the header', async () => {
    const res = await send('/__sandbox/health', { headers: { 'x-sandbox-id': 'no spaces allowed!' } })
    expect(res.status).toBe(400)
    expect((await res.json()).message).toContain('x-sandbox-id')
  })

  // A streamed body has no content-length: it is read chunk by chunk and cut at the limit.
  const streamed = (chunks: string[]) =>
    new ReadableStream({
      start(c) {
        for (const t of chunks) c.enqueue(new TextEncoder().encode(t))
        c.close()
      },
    })
  const postStream = (chunks: string[]) =>
    send('/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: streamed(chunks),
      duplex: 'half',
    } as RequestInit)

  it('a streamed body is read like a declared one', async () => {
    const res = await postStream(['{"email":"admin@fleet.test",', '"password":"wrong"}'])
    expect(res.status).toBe(401)
  })

  it('a streamed body over 1 MB is 413', async () => {
    const res = await postStream([
      '{"email":"admin@fleet.test","password":"',
      'x'.repeat(600_000),
      'x'.repeat(600_000),
      '"}',
    ])
    expect(res.status).toBe(413)
    expect((await res.json()).message).toContain('1048576 bytes')
  })

  it('the same query text on two routes is validated by each route', async () => {
    // Validated queries are cached per route: a cache keyed by the text alone would hand one
    // route's parsed query to the other.
    const notifications = await send('/api/notifications?page=1&limit=50', bearer(token))
    expect(notifications.status).toBe(200)
    const rules = await send('/api/notification-config/rules?page=1&limit=50', bearer(token))
    expect(rules.status).toBe(400)
    expect((await rules.json()).message).toContain('module: is required')
    const again = await send('/api/notifications?page=1&limit=50', bearer(token))
    expect((await again.json()).data.pagination).toMatchObject({ page: 1, limit: 50 })
    const bad = await send('/api/notifications?page=0', bearer(token))
    expect(bad.status).toBe(400)
    expect((await send('/api/notifications?page=0', bearer(token))).status).toBe(400)
  })

  it('a slow, never-ending body does not block other requests', async () => {
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"email":'))
      },
    })
    const pending = send('/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit).catch(() => undefined)
    const health = await send('/__sandbox/health')
    expect(health.status).toBe(200)
    void pending
  })
})
