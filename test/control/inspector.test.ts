import { createRequire } from 'node:module'
import { describe, expect, it, vi } from 'vitest'
import { freshId, json } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { listen } from '../support/events.js'
import { useSandbox } from '../support/sandbox.js'
import { expectEach } from '../support/each.js'

const require = createRequire(import.meta.url)
/** A real HAR 1.2 validator (JSON Schema of the HAR spec, through ajv). */
const harValidator = require('har-validator') as { har(data: unknown): Promise<unknown> }

describe.each(runtimes)('inspector routes through $name', (runtime) => {
  const rt = useSandbox(runtime)

  const world = () => {
    const headers = { 'x-sandbox-id': freshId('insp') }
    const get = async (path: string) => {
      const res = await rt.fetch(`/__sandbox${path}`, { headers })
      return { status: res.status, headers: res.headers, body: await res.json() }
    }
    // workerd keeps its sandboxes in its own process: what only the sandbox object shows
    // (listener counts, the journal's byte total) is checked in the other two runtimes.
    const inProcess = runtime.name !== 'workerd'
    return {
      id: headers['x-sandbox-id'],
      headers,
      get,
      sandbox: async () => (inProcess ? rt.app.sandboxes.get(headers['x-sandbox-id']) : undefined),
    }
  }

  it('GET /requests/{id}: the entry with request and response headers and bodies', async () => {
    const w = world()
    const signIn = await rt.fetch(
      '/api/session-auth/sign-in/email?from=test',
      json({ email: 'admin@fleet.test', password: 'sandbox' }, w.headers),
    )
    expect(signIn.status).toBe(200)
    const { body: list } = await w.get('/requests')
    const entry = list.requests.at(-1)
    expect(entry).toMatchObject({
      method: 'POST',
      path: '/api/session-auth/sign-in/email',
      query: '?from=test',
      status: 200,
    })
    const { status, body } = await w.get(`/requests/${entry.id}`)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      ...entry,
      url: expect.stringMatching(/\/api\/session-auth\/sign-in\/email\?from=test$/),
    })
    expect(body.request.headers['content-type']).toBe('application/json')
    expect(body.request.headers['x-sandbox-id']).toBe(w.id)
    expect(JSON.parse(body.request.body)).toEqual({ email: 'admin@fleet.test', password: '[not kept]' })
    expect(body.request.truncated).toBe(false)
    expect(body.response.headers['content-type']).toMatch(/^application\/json/)
    expect(body.response.headers['set-auth-token']).toMatch(/\S/)
    expect(JSON.parse(body.response.body).user.email).toBe('admin@fleet.test')
  })

  it('GET /requests/{id}: bodies over 64 KB are cut with truncated: true; unknown ids 404, bad ones 400', async () => {
    const w = world()
    // Not a sign-in: a password is never kept (test/control/journal-secrets.test.ts, test/contracts/credentials.test.ts).
    const big = JSON.stringify({ email: 'x'.repeat(100_000) })
    expect((await rt.fetch('/api/auth/password-reset/request', json(JSON.parse(big), w.headers))).status).toBe(400)
    const id = (await w.get('/requests')).body.requests.at(-1).id
    const { body } = await w.get(`/requests/${id}`)
    expect(body.request).toMatchObject({ truncated: true, size: big.length })
    expect(body.request.body).toBe(big.slice(0, 65_536))
    expect(body.status).toBe(400)

    const missing = await w.get('/requests/999999')
    expect(missing.status).toBe(404)
    expect(missing.body.message).toMatch(/^id: no journal entry 999999/)
    const bad = await w.get('/requests/abc')
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/^id: must be a journal entry id/)
  })

  it('GET /requests.har: HAR 1.2 that a HAR validator accepts, oldest first, with headers and bodies', async () => {
    const w = world()
    await rt.fetch('/api/notifications', { headers: w.headers })
    await rt.fetch(
      '/api/session-auth/sign-in/email',
      json({ email: 'admin@fleet.test', password: 'sandbox' }, w.headers),
    )
    await rt.fetch('/api/notifications', { headers: { ...w.headers, 'x-sandbox-scenario': 'rate-limit-exhausted' } })
    const res = await rt.fetch('/__sandbox/requests.har', { headers: w.headers })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toContain('.har')
    const har = await res.json()
    // Resolves with the document when valid; rejects naming every schema error otherwise.
    await expect(harValidator.har(har)).resolves.toBe(har)
    expect(har.log.version).toBe('1.2')
    expect(har.log.creator).toEqual({ name: 'fleet-sandbox', version: require('../../package.json').version })
    const [first, second, third] = har.log.entries
    expect(first.request).toMatchObject({ method: 'GET', url: expect.stringMatching(/\/api\/notifications$/) })
    expect(first.response.status).toBe(401)
    expect(first.response.content.text).toContain('authorization')
    expect(second.request.postData).toMatchObject({
      mimeType: 'application/json',
      text: expect.stringContaining('admin@fleet.test'),
    })
    expect(second.response.status).toBe(200)
    expect(third.response.status).toBe(429)
    expect(third._faults).toEqual(['rate-limit-exhausted'])
    expect(third.response.headers).toContainEqual({ name: 'x-sandbox-fault', value: 'rate-limit-exhausted' })
  })

  it("404 and 405 answers in the API's paths reach the journal, the HAR and the event stream like any other, within its bounds", async () => {
    const w = world()
    const sse = await listen(rt, w.headers)
    await sse.connected
    const long = `/api/${'n'.repeat(5000)}`
    expect((await rt.fetch('/api/nope?x=1', { headers: w.headers })).status).toBe(404)
    expect((await rt.fetch('/api/notifications', { method: 'PUT', headers: w.headers })).status).toBe(405)
    expect((await rt.fetch(long, { method: 'DELETE', headers: w.headers })).status).toBe(404)
    // Not the API's (a browser asks it of every page it opens, the panel's too): answered, not journaled.
    if (runtime.name !== 'msw/node (in-process)')
      expect((await rt.fetch('/favicon.ico', { headers: w.headers })).status).toBe(404)
    const { body: list } = await w.get('/requests')
    expect(list.requests.map((e: { method: string; status: number }) => `${e.method} ${e.status}`)).toEqual([
      'GET 404',
      'PUT 405',
      'DELETE 404',
    ])
    expect(list.requests[0]).toMatchObject({ path: '/api/nope', query: '?x=1', faults: [] })
    expect(list.requests[2].path).toHaveLength(2048)
    const { body: detail } = await w.get(`/requests/${list.requests[1].id}`)
    expect(detail.response.headers.allow).toBe('GET')
    expect(JSON.parse(detail.response.body).message).toContain('method: PUT is not allowed on /api/notifications')
    const har = await (await rt.fetch('/__sandbox/requests.har', { headers: w.headers })).json()
    await expect(harValidator.har(har)).resolves.toBe(har)
    expect(har.log.entries.map((e: { response: { status: number } }) => e.response.status)).toEqual([404, 405, 404])
    await vi.waitFor(() =>
      expect(sse.events.filter((e) => e.event === 'request').map((e) => e.data.status)).toEqual([404, 405, 404]),
    )
    sse.close()
  })

  it('GET /events: request, outbox and state as they happen; a client that leaves leaks no listener', async () => {
    const w = world()
    const sandbox = await w.sandbox()
    const sse = await listen(rt, w.headers)
    await sse.connected
    if (sandbox) await vi.waitFor(() => expect(sandbox.events.size).toBe(1))
    await rt.fetch('/api/auth/password-reset/request', json({ email: 'viewer@fleet.test' }, w.headers))
    await rt.fetch('/__sandbox/scenarios', { ...json({ active: ['slow'] }, w.headers), method: 'PUT' })
    await rt.fetch('/__sandbox/clock', json({ advanceBy: '1d' }, w.headers))
    await vi.waitFor(() => expect(sse.events.map((e) => e.event)).toEqual(['outbox', 'request', 'state', 'state']))
    expect(sse.events[0].data).toMatchObject({ kind: 'password-reset', to: 'viewer@fleet.test' })
    expect(sse.events[1].data).toMatchObject({ method: 'POST', path: '/api/auth/password-reset/request', status: 200 })
    expect(sse.events[2].data).toMatchObject({ change: 'scenarios', scenarios: ['slow'] })
    expect(sse.events[3].data).toMatchObject({ change: 'clock' })

    // Another world's traffic is not this stream's.
    await rt.fetch('/api/notifications', { headers: { 'x-sandbox-id': 'insp-elsewhere' } })
    sse.close()
    if (sandbox) await vi.waitFor(() => expect(sandbox.events.size).toBe(0))
    expect(sse.events).toHaveLength(4)

    // Many clients come and go: none stays behind.
    const many = await Promise.all(Array.from({ length: 20 }, () => listen(rt, w.headers)))
    await Promise.all(many.map((s) => s.connected))
    if (sandbox) await vi.waitFor(() => expect(sandbox.events.size).toBe(20))
    for (const s of many) s.close()
    if (sandbox) await vi.waitFor(() => expect(sandbox.events.size).toBe(0))
  })

  it('GET /events: the stream ends when its sandbox is dropped', async () => {
    const w = world()
    const sandbox = await w.sandbox()
    const res = await rt.fetch('/__sandbox/events', { headers: w.headers })
    if (sandbox) await vi.waitFor(() => expect(sandbox.events.size).toBe(1))
    else await rt.fetch('/__sandbox/health', { headers: w.headers })
    expect((await rt.fetch(`/__sandbox/sandboxes/${w.id}`, { method: 'DELETE' })).status).toBe(200)
    expect(await res.text()).toContain(': connected')
    if (sandbox) expect(sandbox.events.size).toBe(0)
  })

  it('GET /collections and /collections/{name}: counts and pages of records', async () => {
    const w = world()
    const { body } = await w.get('/collections')
    const names = body.collections.map((c: { name: string }) => c.name)
    expect(names).toEqual(expect.arrayContaining(['notifications', 'invoices', 'dtes', 'users', 'layers']))
    const invoices = body.collections.find((c: { name: string }) => c.name === 'invoices')
    expect(invoices.count).toBeGreaterThan(0)

    const page = await w.get('/collections/invoices?page=2&limit=3')
    expect(page.status).toBe(200)
    expect(page.body.pagination).toEqual({
      page: 2,
      limit: 3,
      total: invoices.count,
      totalPages: Math.ceil(invoices.count / 3),
    })
    expect(page.body.items).toHaveLength(Math.min(3, invoices.count - 3))
    const notifications = await w.get('/collections/notifications?limit=100')
    expect(notifications.body.items).toHaveLength(100)
    expect(notifications.body.items[0]).toMatchObject({ id: expect.any(String), clientId: expect.any(String) })

    for (const [query, rule] of [
      ['limit=0', 'limit: must be at least 1'],
      ['limit=101', 'limit: must be at most 100'],
      ['page=0', 'page: must be at least 1'],
      ['limit=x', 'limit: must be an integer'],
    ]) {
      const res = await w.get(`/collections/invoices?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body.message).toContain(rule)
    }
  })

  it('GET /collections/{name}?id= and ?q=: the inspector finds a record by id or by any text in it', async () => {
    const w = world()
    const all = (await w.get('/collections/invoices?limit=100')).body.items as {
      id: string
      receiver: { name: string }
    }[]
    const one = await w.get(`/collections/invoices?id=${encodeURIComponent(all[1].id)}`)
    expect(one.body.items.map((r: { id: string }) => r.id)).toEqual([all[1].id])
    expect(one.body.pagination.total).toBe(1)
    const name = all[1].receiver.name
    const byText = await w.get(`/collections/invoices?limit=100&q=${encodeURIComponent(name.toUpperCase())}`)
    expect(byText.body.items.map((r: { id: string }) => r.id)).toEqual(
      all.filter((r) => JSON.stringify(r).toLowerCase().includes(name.toLowerCase())).map((r) => r.id),
    )
    expect(byText.body.items.length).toBeGreaterThan(0)
    expect((await w.get('/collections/invoices?q=no-such-text-anywhere')).body).toMatchObject({
      items: [],
      pagination: { total: 0 },
    })
    for (const [query, rule] of [
      ['q=', 'q: must not be empty'],
      [`q=${'x'.repeat(201)}`, 'q: must be at most 200'],
      ['id=', 'id: must not be empty'],
    ]) {
      const res = await w.get(`/collections/invoices?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body.message).toContain(rule)
    }
  })

  it('GET /collections/nope: 404 naming the known collections', async () => {
    const w = world()
    const unknown = await w.get('/collections/nope')
    expect(unknown.status).toBe(404)
    expect(unknown.body.message).toMatch(/^name: no collection nope; known: .*invoices/)
  })

  it('the journal stays within 1,000 entries and 8 MB whatever anonymous callers send', async () => {
    const w = world()
    const sandbox = await w.sandbox()
    const query = '?q=' + 'x'.repeat(15 * 1024)
    // 15 KB queries: cut to 2 KB each, so the entry count is what bounds them.
    for (let round = 0; round < 150; round++) {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          rt.fetch(`/api/notifications${query}&n=${round}-${i}`, { headers: w.headers }),
        ),
      )
    }
    expect((await w.get('/requests')).body.requests).toHaveLength(1000)
    if (sandbox) expect(sandbox.journal.bytes).toBeLessThanOrEqual(8 * 1_048_576)
    const last = (await w.get('/requests')).body.requests.at(-1)
    expect(last.query.length).toBe(2048)
    // Bodies of 60 KB: the byte bound drops the oldest long before the entry bound.
    const body = JSON.stringify({ email: 'y'.repeat(60_000) })
    for (let round = 0; round < 25; round++) {
      await Promise.all(
        Array.from({ length: 8 }, () =>
          rt.fetch('/api/auth/password-reset/request', {
            method: 'POST',
            headers: { ...w.headers, 'content-type': 'application/json' },
            body,
          }),
        ),
      )
    }
    const left = (await w.get('/requests')).body.requests as { path: string }[]
    expect(left.length).toBeLessThan(200)
    expectEach(left, (e) => e.path === '/api/auth/password-reset/request')
    if (sandbox) {
      expect(sandbox.journal.bytes).toBeLessThanOrEqual(8 * 1_048_576)
      expect(sandbox.journal.bytes).toBeGreaterThan(7 * 1_048_576)
    }
  })
})
