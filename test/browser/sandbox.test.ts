import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { chromiumAvailable, launch } from './support/chromium.js'
import { createServedApp } from '../../src/apps/server-app.js'
import { type BundleSummary, NOW, buildPageApp, call, open, reload, signIn, waitStarted } from './support/page-app.js'
import { serveStatic, type StaticServer } from './support/static-server.js'
import { expectFilled, expectSameParts, fillEveryPart } from '../support/world-parts.js'

// The entry's gzip budget: what it measured (228.4 KB at issue 55: faker's class out; issue 54's
// stages and the credential scrubber in; 232.2 KB with conduct's stage, the document's rules
// and the bundle's end values; 233.1 KB with the notifications' table and conduct's bound on what
// waits for its judge, docs/benchmarks-history.md), rounded up. A later feature may raise it by what it
// measured to cost here, at most 2 KB gzip each, with a line in docs/benchmarks-history.md; what
// costs more loads on first use (a dynamic import), and 250 KB (the goal) is never passed.
// Bench: `npm run build:browser`, `npm run bench -- --only browser`.
const GZIP_BUDGET = 234 * 1024

describe.skipIf(!chromiumAvailable())('fleet-sandbox/browser in headless Chromium', () => {
  let app: ReturnType<typeof buildPageApp>
  let server: StaticServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  const timings: string[] = []

  beforeAll(async () => {
    app = buildPageApp()
    server = await serveStatic(app.dir)
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    app?.remove()
    if (timings.length) console.log(`browser sandbox timings: ${timings.join('; ')}`)
  })
  // Each test gets a new context: its own service worker registration and IndexedDB.
  beforeEach(async () => {
    context = await browser.newContext()
    page = await context.newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterEach(() => context?.close())

  const unreviewed = async (token: string) => {
    const res = await call(page, 'GET', '/api/notifications?status=unreviewed&limit=1', { token })
    expect(res.status).toBe(200)
    return { count: res.body.data.unreviewedCount as number, first: res.body.data.notifications[0].id as string }
  }
  const firstAnswer = () =>
    page.evaluate(
      () =>
        (
          window as unknown as {
            firstAnswer: { ms: number; status: number; health: { seed: number; scenarios: string[] } }
          }
        ).firstAnswer,
    )

  it('bundles without Node built-ins, and measures the entry', () => {
    const { bundle } = app
    const parts = bundle.packages.map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KB`).join(', ')
    console.log(
      `browser entry and its ${bundle.startFiles.length - 1} static chunks: ${(bundle.bytes / 1024).toFixed(0)} KB minified, ${(bundle.gzipBytes / 1024).toFixed(1)} KB gzip (level ${bundle.gzipLevel}); largest parts: ${parts}`,
    )
    expect(bundle.builtins).toEqual([])
  })

  // What a page loads before startSandbox runs, counted as the bench counts it (scripts/browser-bundle.mjs).
  it(`stays within ${GZIP_BUDGET / 1024} KB gzip: the entry and the chunks it imports statically`, () => {
    expect(app.bundle.startFiles).toContain('fleet-sandbox.js')
    expect(app.bundle.gzipBytes, budgetAdvice(app.bundle)).toBeLessThanOrEqual(GZIP_BUDGET)
  })

  it('starts the worker, which controls the page before the first request', async () => {
    const started = await open(page, server.url)
    expect(started).toEqual({ ok: true, resumed: false })
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(
      `${server.url}/mockServiceWorker.js`,
    )
    const first = await firstAnswer()
    expect(first.status).toBe(200)
    expect(first.health).toMatchObject({ status: 'ok', seed: 1, scenarios: [] })
    timings.push(`page load to first answer ${first.ms.toFixed(0)} ms (first visit, worker installed)`)
    // The app's own files still come from the server.
    const file = await call(page, 'GET', '/index.html')
    expect(file.status).toBe(200)
    expect(file.headers['content-type']).toContain('text/html')
  })

  it('signs in, lists notifications, writes, and still sees the writes after a reload', async () => {
    await open(page, server.url)
    const token = await signIn(page)
    expect(token).toMatch(/\S/)
    const list = await call(page, 'GET', '/api/notifications', { token })
    expect(list.status).toBe(200)
    expect(list.body.data.notifications).toHaveLength(20)
    const before = await unreviewed(token)
    expect(
      (await call(page, 'PATCH', `/api/notifications/${before.first}`, { token, body: { status: 'reviewed' } })).status,
    ).toBe(200)
    expect((await unreviewed(token)).count).toBe(before.count - 1)

    // DELETE /api/layers/:id: a deleted layer stays gone.
    const layers = await call(page, 'GET', '/api/layers', { token })
    expect(layers.status, 'GET /api/layers must be served').toBe(200)
    const layer = layers.body.data[0]
    expect(layer, 'the demo client has layers').toBeDefined()
    expect((await call(page, 'DELETE', `/api/layers/${layer.id}`, { token })).status).toBe(200)

    const clock = await call(page, 'POST', '/__sandbox/clock', { body: { advanceBy: '2h' } })
    expect(clock.status).toBe(200)

    // Reload at once: the save after the last write and the pagehide flush must both be safe.
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    timings.push(`page load to first answer ${(await firstAnswer()).ms.toFixed(0)} ms (reload, state resumed)`)
    expect((await unreviewed(token)).count).toBe(before.count - 1) // the session survived too
    const after = await call(page, 'GET', '/api/layers', { token })
    expect(after.body.data.map((l: { id: string }) => l.id)).not.toContain(layer.id)
    expect((await call(page, 'DELETE', `/api/layers/${layer.id}`, { token })).status).toBe(404)
    const now = (await call(page, 'GET', '/__sandbox/clock')).body.now
    expect(Date.parse(now)).toBeGreaterThanOrEqual(Date.parse('2026-11-22T14:00:00.000Z'))
    const journal = (await call(page, 'GET', '/__sandbox/requests')).body.requests.map(
      (e: { method: string; path: string }) => `${e.method} ${e.path}`,
    )
    expect(journal).toContain(`PATCH /api/notifications/${before.first}`)
    expect(journal).toContain(`DELETE /api/layers/${layer.id}`)
  })

  it('keeps every write of a burst when the page reloads right after it', async () => {
    await open(page, server.url)
    const token = await signIn(page)
    const before = (await unreviewed(token)).count
    for (let round = 1; round <= 3; round++) {
      const { first } = await unreviewed(token)
      await call(page, 'PATCH', `/api/notifications/${first}`, { token, body: { status: 'reviewed' } })
      await reload(page)
      expect((await unreviewed(token)).count).toBe(before - round)
    }
  })

  // An e2e test writes and reloads as soon as the answer is in (here the page itself, in the
  // same task as the answer: no round trip to the test between them). Nothing may be lost.
  const REPEATS = 20
  // Ten times the default size: a whole state that takes long to save (the old saver lost writes here).
  const LARGER = { notifications: 20_000 }
  /** Sends a request from the page and reloads it in the same task its answer arrives in; resolves with the answer's status once the new page has started. */
  const thenReload = async (method: string, path: string, token?: string, body?: unknown) => {
    const navigated = page.waitForEvent('framenavigated')
    await page.evaluate(
      ({ method, path, token, body }) => {
        const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
        if (token) headers.authorization = `Bearer ${token}`
        void fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).then(
          (res) => {
            sessionStorage.setItem('answer', String(res.status))
            location.reload()
          },
        )
      },
      { method, path, token, body },
    )
    await navigated
    expect(await waitStarted(page)).toEqual({ ok: true, resumed: true })
    return Number(await page.evaluate(() => sessionStorage.getItem('answer')))
  }

  it(`keeps a write across a reload right after its answer, ${REPEATS} times in a row`, async () => {
    await open(page, server.url, LARGER)
    const token = await signIn(page)
    const lost: number[] = []
    for (let i = 1; i <= REPEATS; i++) {
      const { count, first } = await unreviewed(token)
      expect(await thenReload('PATCH', `/api/notifications/${first}`, token, { status: 'reviewed' })).toBe(200)
      if ((await unreviewed(token)).count !== count - 1) lost.push(i)
    }
    expect(lost, 'repetitions whose write a reload lost').toEqual([])
  })

  it(`keeps a reset across a reload right after its answer, ${REPEATS} times in a row`, async () => {
    await open(page, server.url, LARGER)
    const fresh = (await unreviewed(await signIn(page))).count
    const lost: number[] = []
    for (let i = 1; i <= REPEATS; i++) {
      const token = await signIn(page)
      const { first } = await unreviewed(token)
      expect(
        (await call(page, 'PATCH', `/api/notifications/${first}`, { token, body: { status: 'reviewed' } })).status,
      ).toBe(200)
      expect(await thenReload('POST', '/__sandbox/reset', undefined, {})).toBe(200)
      // The reset cleared the session and the write; a lost reset would show either.
      const session = (await call(page, 'GET', '/api/notifications', { token })).status
      if (session !== 401 || (await unreviewed(await signIn(page))).count !== fresh) lost.push(i)
    }
    expect(lost, 'repetitions whose reset a reload lost').toEqual([])
  })

  it('keeps a delete across a reload right after its answer', async () => {
    await open(page, server.url, LARGER)
    const token = await signIn(page)
    const layers = (await call(page, 'GET', '/api/layers', { token })).body.data as { id: string }[]
    expect(layers.length).toBeGreaterThan(1)
    for (const [i, layer] of layers.entries()) {
      expect(await thenReload('DELETE', `/api/layers/${layer.id}`, token)).toBe(200)
      const left = (await call(page, 'GET', '/api/layers', { token })).body.data.map((l: { id: string }) => l.id)
      expect(left).toEqual(layers.slice(i + 1).map((l) => l.id))
    }
  })

  it('rewinds in the page: the changes and the rewound world outlive a reload (IndexedDB)', async () => {
    await open(page, server.url)
    const token = await signIn(page)
    const layers = (await call(page, 'GET', '/api/layers', { token })).body.data as { id: string }[]
    expect((await call(page, 'DELETE', `/api/layers/${layers[0].id}`, { token })).status).toBe(200)
    const journal = async () =>
      (await call(page, 'GET', '/__sandbox/requests')).body.requests as {
        id: number
        method: string
        changes?: { patch: { op: string; path: string }[] }
      }[]
    const deleted = (await journal()).find((e) => e.method === 'DELETE')!
    expect(deleted.changes!.patch).toEqual([expect.objectContaining({ op: 'remove', path: `/layers/${layers[0].id}` })])
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    expect((await journal()).find((e) => e.id === deleted.id)!.changes).toEqual(deleted.changes)
    const rewound = await call(page, 'POST', '/__sandbox/rewind', { body: { before: deleted.id } })
    expect(rewound.status, JSON.stringify(rewound.body)).toBe(200)
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    const ids = (await call(page, 'GET', '/api/layers', { token })).body.data.map((l: { id: string }) => l.id)
    expect(ids).toContain(layers[0].id)
    expect(
      (await journal()).filter((e) => e.id > deleted.id).map((e) => `${e.method} ${(e as { path?: string }).path}`),
    ).toContain('POST /__sandbox/rewind')
  })

  // The parts list (src/core/sandbox/parts.ts) taken through the page's own store: each part
  // filled through the page's fetch, as test/world/parts.test.ts fills it in the other runtimes.
  // The page has no OAuth server (the browser entry leaves it out, src/apps/server-app.ts): its call is
  // served by a served app (src/apps/server-app.ts) holding a copy of the page's world, whose world
  // then comes back into the page by PUT /__sandbox/snapshot, the way a browser world gets OAuth
  // clients. The parts filled before it are stored change by change, checked by a reload there;
  // the restore stores every part anew, and the records are filled after it: a second reload.
  it('every part of the world outlives a reload (IndexedDB)', async () => {
    expect(await open(page, server.url)).toEqual({ ok: true, resumed: false })
    const snapshot = async () => {
      const res = await call(page, 'GET', '/__sandbox/snapshot')
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
      return res.body as Record<string, any>
    }
    const fresh = await snapshot()
    const served = async (method: string, path: string, token: string | undefined, body: unknown) => {
      const before = await snapshot()
      expect(await reload(page)).toEqual({ ok: true, resumed: true })
      expectSameParts(await snapshot(), before, 'a reload (IndexedDB) of the parts filled by requests')
      const app = createServedApp({ seed: before.seed ?? 1, now: NOW })
      const world = await app.ready()
      await world.restore(before)
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      }
      const res = await app.fetch(
        new Request(`http://sandbox.test${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
        { via: 'msw', clientAddress: '127.0.0.1' },
      )
      const text = await res.text()
      if (res.status < 400) {
        const restored = await call(page, 'PUT', '/__sandbox/snapshot', {
          body: JSON.parse(JSON.stringify(world.snapshot())),
        })
        expect(restored.status, JSON.stringify(restored.body).slice(0, 300)).toBe(200)
      }
      return { status: res.status, text }
    }
    await fillEveryPart(
      async ({ method, path, body }, token) => {
        if (path.startsWith('/oauth/')) return served(method, path, token, body)
        const res = await call(page, method, path, { token, body })
        return { status: res.status, text: typeof res.body === 'string' ? res.body : JSON.stringify(res.body) }
      },
      () => signIn(page),
    )
    const filled = await snapshot()
    expectFilled(filled, fresh)
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    expectSameParts(await snapshot(), filled, 'a reload (IndexedDB)')
  })

  it('keeps a write whose answer arrived when the page crashes right after it (no pagehide, no later save)', async () => {
    await open(page, server.url)
    const token = await signIn(page)
    const { count, first } = await unreviewed(token)
    expect(
      (await call(page, 'PATCH', `/api/notifications/${first}`, { token, body: { status: 'reviewed' } })).status,
    ).toBe(200)
    // The renderer dies as a killed process does; IndexedDB lives in the browser process.
    const crashed = page.waitForEvent('crash')
    void (await context.newCDPSession(page)).send('Page.crash').catch(() => undefined)
    await crashed
    page = await context.newPage()
    expect(await open(page, server.url)).toEqual({ ok: true, resumed: true })
    expect((await unreviewed(token)).count).toBe(count - 1)
  })

  it('keeps a fresh world across a reload right after the start, with its dates, though its dates follow the real time', async () => {
    // now: null, so the seeded dates are relative to the real time of the first visit.
    expect(await open(page, server.url, { now: null })).toEqual({ ok: true, resumed: false })
    const token = await signIn(page)
    const first = (await call(page, 'GET', '/api/notifications?limit=1', { token })).body.data.notifications[0]
    const seeded = await page.evaluate(
      () => (window as unknown as { sandbox: { sandbox(): { seededAt: number } } }).sandbox.sandbox().seededAt,
    )
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    expect(
      await page.evaluate(
        () => (window as unknown as { sandbox: { sandbox(): { seededAt: number } } }).sandbox.sandbox().seededAt,
      ),
    ).toBe(seeded)
    expect((await call(page, 'GET', '/api/notifications?limit=1', { token })).body.data.notifications[0]).toEqual(first)

    // No request at all before the reload: the world was saved when it started.
    expect(await open(page, server.url, { now: null, seed: 2 })).toEqual({ ok: true, resumed: false })
    const before = (await call(page, 'GET', '/__sandbox/health')).body
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    expect((await call(page, 'GET', '/__sandbox/health')).body.seed).toBe(before.seed)
  })

  it('keeps the journal and the clock of a page that only read, when it reloads right after', async () => {
    await open(page, server.url)
    const token = await signIn(page)
    await reload(page) // the sign-in is saved; what follows are reads only
    for (let i = 1; i <= 3; i++)
      expect((await call(page, 'GET', `/api/notifications?limit=1&page=${i}`, { token })).status).toBe(200)
    const clock = (await call(page, 'GET', '/__sandbox/clock')).body.now
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    const journal = (await call(page, 'GET', '/__sandbox/requests')).body.requests.map(
      (e: { path: string; query: string }) => `${e.path}${e.query}`,
    )
    expect(journal.slice(-3)).toEqual([
      '/api/notifications?limit=1&page=1',
      '/api/notifications?limit=1&page=2',
      '/api/notifications?limit=1&page=3',
    ])
    expect(Date.parse((await call(page, 'GET', '/__sandbox/clock')).body.now)).toBeGreaterThanOrEqual(Date.parse(clock))
  })

  it('keeps its signed tokens valid across a reload: the random signing key is part of the saved state', async () => {
    await open(page, server.url)
    const { token } = (await call(page, 'POST', '/__sandbox/tokens/agent', { body: { email: 'operator@fleet.test' } }))
      .body
    expect((await call(page, 'GET', '/api/auth/users/me', { token })).status).toBe(200)
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    expect((await call(page, 'GET', '/api/auth/users/me', { token })).status).toBe(200)
    expect((await call(page, 'GET', '/__sandbox/snapshot')).body.signingKey).toMatch(/^[0-9a-f]{64}$/)
  })

  it('answers 404 and 405 for unknown API paths and methods, and leaves other paths to the network', async () => {
    await open(page, server.url)
    const missing = await call(page, 'GET', '/api/nope')
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ statusCode: 404, message: 'path: no route GET /api/nope' })
    const wrong = await call(page, 'DELETE', '/api/notifications')
    expect(wrong.status).toBe(405)
    expect(wrong.headers.allow).toBe('GET')
    expect((await call(page, 'GET', '/__sandbox/nope')).status).toBe(404)
    const elsewhere = await call(page, 'GET', '/apix/notifications')
    expect(elsewhere.status).toBe(404)
    expect(elsewhere.body).toContain('static server')
  })

  it("on an origin the app did not name, answers only the routes it serves: a third-party SDK's /api/... call reaches its server", async () => {
    // A second local server stands for the SDK's host (https://o123.ingest.sentry.io): nothing leaves the machine.
    const sdk = createServer((req, res) => {
      res
        .writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' })
        .end(`sdk host: ${req.method} ${req.url}`)
    })
    await new Promise<void>((ok) => sdk.listen(0, '127.0.0.1', ok))
    const elsewhere = `http://localhost:${(sdk.address() as AddressInfo).port}`
    try {
      await open(page, server.url)
      const send = (method: string, path: string) =>
        page.evaluate(
          async ({ url, method }) => {
            const res = await fetch(url, { method, body: method === 'POST' ? 'envelope' : undefined })
            return `${res.status} ${await res.text()}`
          },
          { url: elsewhere + path, method },
        )
      expect(await send('POST', '/api/456/envelope/')).toBe('200 sdk host: POST /api/456/envelope/')
      expect(await send('GET', '/api/nope')).toBe('200 sdk host: GET /api/nope')
      // A path the sandbox serves in another method is not its route either.
      expect(await send('POST', '/api/notifications')).toBe('200 sdk host: POST /api/notifications')
      // What the sandbox does serve, it answers there too (the app may call it by another host name).
      expect(await send('GET', '/api/notifications')).toMatch(/^401 \{/)
      // The page's own origin keeps the sandbox's 404.
      expect((await call(page, 'GET', '/api/456/envelope/')).status).toBe(404)
    } finally {
      await new Promise((ok) => sdk.close(ok))
    }
  })

  it('resumes only with the same seed; another seed starts fresh', async () => {
    await open(page, server.url, { seed: 3 })
    const token = await signIn(page)
    const fresh = await unreviewed(token)
    await call(page, 'PATCH', `/api/notifications/${fresh.first}`, { token, body: { status: 'reviewed' } })
    expect(await open(page, server.url, { seed: 3 })).toEqual({ ok: true, resumed: true })
    expect((await unreviewed(token)).count).toBe(fresh.count - 1)
    expect(await open(page, server.url, { seed: 4 })).toEqual({ ok: true, resumed: false })
    expect((await firstAnswer()).health.seed).toBe(4)
    expect((await call(page, 'GET', '/api/notifications', { token })).status).toBe(401) // seed 3's session is gone
  })

  it('POST /__sandbox/reset clears the saved state', async () => {
    await open(page, server.url)
    const token = await signIn(page)
    const fresh = await unreviewed(token)
    await call(page, 'PATCH', `/api/notifications/${fresh.first}`, { token, body: { status: 'reviewed' } })
    expect((await call(page, 'POST', '/__sandbox/reset', { body: {} })).status).toBe(200)
    expect(await reload(page)).toEqual({ ok: true, resumed: true })
    expect((await call(page, 'GET', '/api/notifications', { token })).status).toBe(401)
    expect((await unreviewed(await signIn(page))).count).toBe(fresh.count)
    const journal = (await call(page, 'GET', '/__sandbox/requests')).body.requests.map(
      (e: { path: string; status: number }) => `${e.path} ${e.status}`,
    )
    expect(journal).toEqual(['/api/notifications 401', '/api/session-auth/sign-in/email 200', '/api/notifications 200'])
  })

  it('switches to rate-limited by URL: 429s with Retry-After readable from JavaScript, and the switch persists', async () => {
    await open(page, `${server.url}/?sandbox-scenario=rate-limited`)
    expect((await firstAnswer()).health.scenarios).toEqual(['rate-limited'])
    const refused = await call(page, 'GET', '/api/notifications')
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.headers['x-sandbox-fault']).toBe('rate-limited')
    expect(refused.body).toMatchObject({ statusCode: 429, error: expect.any(String), message: expect.any(String) })
    // Without a token the caller is the page itself: its 4th attempt goes through (to the 401).
    expect((await call(page, 'GET', '/api/notifications')).status).toBe(429)
    expect((await call(page, 'GET', '/api/notifications')).status).toBe(429)
    expect((await call(page, 'GET', '/api/notifications')).status).toBe(401)

    await page.goto(server.url)
    await page.waitForFunction(() => (window as { started?: unknown }).started)
    expect((await firstAnswer()).health.scenarios).toEqual(['rate-limited'])
    await open(page, `${server.url}/?sandbox-scenario=rate-limited;failures=1;retryAfter=5,rate-limit-exhausted`)
    const scenarios = (await call(page, 'GET', '/__sandbox/scenarios')).body.scenarios.filter(
      (s: { active: boolean }) => s.active,
    )
    const byName = Object.fromEntries(scenarios.map((s: { name: string; options: object }) => [s.name, s.options]))
    expect(byName).toEqual({
      'rate-limited': { failures: 1, retryAfter: 5 },
      'rate-limit-exhausted': expect.any(Object),
    })
    await open(page, `${server.url}/?sandbox-scenario=`)
    expect((await firstAnswer()).health.scenarios).toEqual([])
  })

  it('a wrong scenario in the URL leaves the app running, said in the console and over the page', async () => {
    const errors: string[] = []
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    const started = await open(page, `${server.url}/?sandbox-scenario=rate-limted`)
    expect(started.ok).toBe(true)
    expect((await firstAnswer()).health.scenarios).toEqual([])
    expect((await call(page, 'GET', '/__sandbox/health')).status).toBe(200)
    expect(errors.join('\n')).toContain('fleet-sandbox: ?sandbox-scenario: unknown scenario "rate-limted"')
    const notice = page.locator('[data-fleet-sandbox-notice]')
    await notice.waitFor()
    expect(await notice.textContent()).toContain('unknown scenario "rate-limted"; known: ')
    expect(await notice.getAttribute('role')).toBe('alert')
    await notice.click()
    expect(await notice.count()).toBe(0)
  })

  it('logs one readable line per answered request by default, MSW groups on request, none with false', async () => {
    const lines: string[] = []
    page.on('console', (m) => lines.push(`${m.type()} ${m.text()}`))
    await open(page, server.url, { quiet: false })
    await call(page, 'GET', '/api/notifications', { headers: { 'x-sandbox-scenario': 'rate-limited' } })
    await expect
      .poll(() => lines.filter((l) => l.includes('/api/notifications')))
      .toEqual(['info fleet-sandbox: GET /api/notifications 429 (rate-limited)'])
    expect(lines.some((l) => l.includes('[MSW]') && l.includes('/api/'))).toBe(false)

    lines.length = 0
    await open(page, server.url, { quiet: false, requestLog: false })
    await call(page, 'GET', '/__sandbox/health')
    await call(page, 'GET', '/api/notifications')
    expect(lines.filter((l) => l.includes('/api/notifications') || l.includes('GET /__sandbox'))).toEqual([])

    lines.length = 0
    await open(page, server.url, { quiet: false, requestLog: 'msw' })
    await call(page, 'GET', '/api/notifications')
    await expect.poll(() => lines.some((l) => l.includes('[MSW]') && l.includes('/api/notifications'))).toBe(true)
  })

  it('fixtures shape the page world and every reset', async () => {
    const layer = {
      id: 'lay_page',
      clientId: 'cli_acme',
      name: 'From the page',
      kind: 'zone',
      color: '#123456',
      visible: true,
      createdAt: '2026-01-01T00:00:00.000Z',
    }
    await open(page, server.url, { fixtures: { layers: [layer] }, persist: false })
    const ids = async () =>
      (await call(page, 'GET', '/api/layers', { token: 'atk_sandbox_admin' })).body.data.map(
        (l: { id: string }) => l.id,
      )
    expect(await ids()).toEqual(['lay_page'])
    expect((await call(page, 'POST', '/__sandbox/reset', { body: { seed: 9 } })).status).toBe(200)
    expect(await ids()).toEqual(['lay_page'])
    expect(
      (await call(page, 'GET', '/api/layers', { token: 'atk_sandbox_admin', headers: { 'x-sandbox-id': 'tab-2' } }))
        .body.data,
    ).toHaveLength(1)
  })

  it('says how to put the worker script in place when it is missing, over the page too', async () => {
    const started = await open(page, server.url, { serviceWorkerUrl: '/nowhere/mockServiceWorker.js' })
    expect(started.ok).toBe(false)
    expect(await page.locator('[data-fleet-sandbox-notice]').textContent()).toContain(
      'fleet-sandbox did not start: the service worker at /nowhere/mockServiceWorker.js did not start',
    )
    expect(started.error).toMatch(
      /the service worker at \/nowhere\/mockServiceWorker\.js did not start .*npx fleet-sandbox init <publicDir>/s,
    )
  })

  it('answers PUT /__sandbox/scenarios and the handle the same way, and both persist', async () => {
    await open(page, server.url)
    expect((await call(page, 'PUT', '/__sandbox/scenarios', { body: { active: ['rate-limited'] } })).status).toBe(200)
    await reload(page)
    expect((await firstAnswer()).health.scenarios).toEqual(['rate-limited'])
    await page.evaluate(() => (window as unknown as { sandbox: { use(...s: unknown[]): Promise<void> } }).sandbox.use())
    await reload(page)
    expect((await firstAnswer()).health.scenarios).toEqual([])
    await page.evaluate(() =>
      (window as unknown as { sandbox: { reset(seed?: number): Promise<void> } }).sandbox.reset(9),
    )
    await reload(page)
    expect((await call(page, 'GET', '/__sandbox/health')).body.seed).toBe(9)
  })

  it('persist: false starts fresh on every load', async () => {
    await open(page, server.url, { persist: false })
    const token = await signIn(page)
    expect(await open(page, server.url, { persist: false })).toEqual({ ok: true, resumed: false })
    expect((await call(page, 'GET', '/api/notifications', { token })).status).toBe(401)
  })

  it('starts fresh, with a warning, when the saved state is unreadable', async () => {
    await open(page, server.url)
    await signIn(page)
    await page.evaluate(() => (window as unknown as { sandbox: { stop(): Promise<void> } }).sandbox.stop())
    // A stored record the layers collection refuses: the saved state is not one this version reads.
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const req = indexedDB.open('fleet-sandbox', 2)
          req.onsuccess = () => {
            const tx = req.result.transaction('parts', 'readwrite')
            tx.objectStore('parts').put(JSON.stringify({ s: 1, v: { id: 'broken', name: 42 } }), [
              'default',
              'r:layers:broken',
            ])
            tx.oncomplete = () => resolve()
            tx.onerror = () => reject(tx.error)
          }
        }),
    )
    const warnings: string[] = []
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()))
    expect(await reload(page)).toEqual({ ok: true, resumed: false })
    expect(warnings.join('\n')).toMatch(/saved state could not be restored/)
  })

  it('stop() hands requests back to the network', async () => {
    await open(page, server.url)
    await page.evaluate(() => (window as unknown as { sandbox: { stop(): Promise<void> } }).sandbox.stop())
    const res = await call(page, 'GET', '/__sandbox/health')
    expect(res.status).toBe(404)
    expect(res.body).toContain('static server')
    // And it can start again in the same page; two starts at once leave one sandbox.
    const seeds = await page.evaluate(async () => {
      const start = (window as unknown as { startSandbox(o: object): Promise<{ sandbox(): { seed: number } }> })
        .startSandbox
      const [a, b] = await Promise.all([start({ seed: 5, quiet: true }), start({ seed: 6, quiet: true })])
      return [a.sandbox().seed, b.sandbox().seed]
    })
    expect(seeds).toEqual([5, 6])
    expect((await call(page, 'GET', '/__sandbox/health')).body.seed).toBe(6)
  })

  it('answers only its origins when given, with every header readable cross-origin', async () => {
    const api = 'https://api.fleet.test'
    expect(await open(page, server.url, { origins: [api] })).toEqual({ ok: true, resumed: false })
    const token = await page.evaluate(async (api) => {
      const res = await fetch(`${api}/api/session-auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
      })
      return res.headers.get('set-auth-token')
    }, api)
    expect(token).toMatch(/\S/)
    const status = await page.evaluate(
      async ({ api, token }) =>
        (await fetch(`${api}/api/notifications`, { headers: { authorization: `Bearer ${token}` } })).status,
      { api, token },
    )
    expect(status).toBe(200)
    // Same-origin /api is not the sandbox's any more: it reaches the static server.
    expect((await call(page, 'GET', '/api/notifications')).status).toBe(404)
    expect((await call(page, 'GET', '/api/notifications')).body).toContain('static server')
  })

  it('reads a relative origin against the page: only that path prefix is answered', async () => {
    // The page's start-up request goes to /backend/__sandbox/health, so it must be answered.
    expect(await open(page, server.url, { origins: ['/backend'] })).toEqual({ ok: true, resumed: false })
    for (let i = 0; i < 2; i++) expect((await call(page, 'GET', '/backend/__sandbox/health')).status).toBe(200)
    const plain = await call(page, 'GET', '/__sandbox/health')
    expect(plain.status).toBe(404)
    expect(plain.body).toContain('static server')
  })

  it('gives each x-sandbox-id its own world in the page too', async () => {
    await open(page, server.url)
    const a = { 'x-sandbox-id': 'tab-a' }
    const res = await call(page, 'POST', '/api/session-auth/sign-in/email', {
      body: { email: 'admin@fleet.test', password: 'sandbox' },
      headers: a,
    })
    const token = res.headers['set-auth-token']
    expect((await call(page, 'GET', '/api/notifications', { token, headers: a })).status).toBe(200)
    expect((await call(page, 'GET', '/api/notifications', { token })).status).toBe(401)
  })
})

function budgetAdvice(bundle: BundleSummary): string {
  const zod = bundle.packages.find(([name]) => name === 'zod')?.[1] ?? 0
  return [
    `the browser entry and its static chunks (${bundle.startFiles.join(', ')}) are ${(bundle.gzipBytes / 1024).toFixed(1)} KB gzip, over ${GZIP_BUDGET / 1024} KB.`,
    zod > 200 * 1024
      ? `zod is ${(zod / 1024).toFixed(0)} KB minified: \`import { z } from 'zod'\` keeps every zod locale; \`import * as z from 'zod'\` lets the bundler drop them (about -60 KB gzip).`
      : '',
  ].join(' ')
}
