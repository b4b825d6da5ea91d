import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { chromiumAvailable, launch } from './support/chromium.js'
import { NOW, ROOT, buildPageApp, call, open } from './support/page-app.js'
import { serveStatic, type StaticServer } from './support/static-server.js'

/** Set SCREENSHOTS=1 to rewrite docs/images/inspector-*.png from this run. */
const SHOTS = process.env.SCREENSHOTS === '1'

describe.skipIf(!chromiumAvailable())('the inspector panel (GET /__sandbox) in headless Chromium', () => {
  let server: RunningServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let n = 0
  let world: string

  beforeAll(async () => {
    server = await startServer({ seed: 1, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    page = await context.newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
    world = `panel-${n++}`
  })
  afterEach(() => context?.close())

  const api = (path: string, init: RequestInit = {}, id = world) =>
    fetch(server.url + path, {
      ...init,
      headers: {
        'x-sandbox-id': id,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(init.headers as Record<string, string>),
      },
    })
  const signIn = async () =>
    (
      await api('/api/session-auth/sign-in/email', {
        method: 'POST',
        body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
      })
    ).headers.get('set-auth-token')!

  /** Opens the panel on this test's world, as a developer types it in. */
  async function openPanel(id = world) {
    await page.goto(`${server.url}/__sandbox`)
    await page.fill('input[name=world]', id)
    await page.click('button[type=submit]')
    await page.waitForSelector(`.world[data-world="${id}"]`)
    await page.waitForSelector('.live.on')
  }
  const rows = () => page.locator('table.journal tbody tr')

  it('shows requests and outbox entries as they happen, without a click', async () => {
    await openPanel()
    await expect.poll(() => page.textContent('.empty')).toContain('No requests yet')
    await api('/api/notifications?limit=1')
    await api('/api/auth/password-reset/request', {
      method: 'POST',
      body: JSON.stringify({ email: 'viewer@fleet.test' }),
    })
    await expect.poll(() => rows().count()).toBe(2)
    expect(await rows().first().textContent()).toContain('/api/auth/password-reset/request')
    expect(await page.textContent('nav')).toContain('Outbox (1)')
    await page.click('nav button:has-text("Outbox")')
    expect(await page.textContent('table.outbox')).toContain('viewer@fleet.test')
    await api('/api/auth/password-reset/request', {
      method: 'POST',
      body: JSON.stringify({ email: 'admin@fleet.test' }),
    })
    await expect.poll(() => page.locator('table.outbox tbody tr').count()).toBe(2)
    // A state change (the clock, from elsewhere) reaches the panel too.
    await api('/__sandbox/clock', { method: 'POST', body: JSON.stringify({ set: '2027-01-01T00:00:00Z' }) })
    await expect.poll(() => page.textContent('.world')).toContain('2027-01-01T00:00:0')
  })

  it('keeps a request that lands while the journal list is on its way', async () => {
    // The list is read first and delivered late: the request between is on the stream only.
    await page.route('**/__sandbox/requests', async (route) => {
      if (route.request().headers()['x-sandbox-id'] !== world) return route.continue()
      const listed = await route.fetch()
      await page.waitForSelector('.live.on')
      await api('/api/layers')
      await expect.poll(() => rows().count()).toBe(1)
      await route.fulfill({ response: listed })
    })
    const loaded = page.waitForResponse(
      (r) => r.url().endsWith('/__sandbox/outbox') && r.request().headers()['x-sandbox-id'] === world,
    )
    await openPanel()
    await loaded
    expect(await rows().count()).toBe(1)
    expect(await rows().first().textContent()).toContain('/api/layers')
  })

  it('opens a request: method, URL, status, faults, duration, headers, pretty bodies, copy as curl', async () => {
    await openPanel()
    await api('/api/session-auth/sign-in/email?via=panel', {
      method: 'POST',
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
      headers: { 'x-sandbox-scenario': 'slow;ms=5' },
    })
    await expect.poll(() => rows().count()).toBe(1)
    await rows().first().click()
    const details = page.locator('aside.details')
    await details.locator('pre.body').first().waitFor()
    const text = (await details.textContent())!
    expect(text).toContain('POST')
    expect(text).toContain(`${server.url}/api/session-auth/sign-in/email?via=panel`)
    expect(text).toContain('200')
    expect(text).toContain('slow')
    expect(text).toMatch(/\d+(\.\d+)? ms/)
    expect(text).toContain('set-auth-token')
    expect(text).toContain('content-type')
    // Bodies are indented JSON.
    // The journal never keeps a password (test/control/journal-secrets.test.ts).
    expect(await details.locator('pre.body').first().textContent()).toBe(
      JSON.stringify({ email: 'admin@fleet.test', password: '[not kept]' }, null, 2),
    )
    expect(await details.locator('pre.body').nth(1).textContent()).toContain('"user": {')
    const curl = (await details.locator('.curl pre').textContent())!
    expect(curl).toContain(`curl -X POST '${server.url}/api/session-auth/sign-in/email?via=panel'`)
    expect(curl).toContain(`-H 'x-sandbox-id: ${world}'`)
    expect(curl).toContain(`--data-raw '{"email":"admin@fleet.test","password":"[not kept]"}'`)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    await details.locator('button:has-text("Copy as curl")').click()
    await expect.poll(() => details.locator('button:has-text("Copied")').count()).toBe(1)
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(curl)
    if (SHOTS) await shoot(page, 'inspector-desktop.png')
  })

  it('filters by status, method, path text and fault', async () => {
    await openPanel()
    const token = await signIn()
    await api('/api/notifications', { headers: { authorization: `Bearer ${token}` } })
    await api('/api/layers') // 401
    await api('/api/layers', {
      headers: { authorization: `Bearer ${token}`, 'x-sandbox-scenario': 'rate-limit-exhausted' },
    }) // 429
    await expect.poll(() => rows().count()).toBe(4)
    await page.selectOption('select[name=status]', '4xx')
    await expect.poll(() => rows().count()).toBe(2)
    await page.selectOption('select[name=fault]', 'rate-limit-exhausted')
    await expect.poll(() => rows().count()).toBe(1)
    expect(await rows().first().textContent()).toContain('429')
    await page.selectOption('select[name=fault]', 'all')
    await page.selectOption('select[name=status]', 'all')
    await page.selectOption('select[name=method]', 'POST')
    await expect.poll(() => rows().count()).toBe(1)
    await page.selectOption('select[name=method]', 'all')
    await page.fill('input[name=path]', 'LAYERS')
    await expect.poll(() => rows().count()).toBe(2)
    await page.fill('input[name=path]', 'nothing-like-this')
    await expect
      .poll(() => page.textContent('.requests .empty'))
      .toContain('No request matches these filters (4 in the journal)')
  })

  it('lists unknown routes (404) and wrong methods (405) like any other request', async () => {
    await openPanel()
    await api('/api/nope')
    await api('/api/notifications', { method: 'PUT' })
    await expect.poll(() => rows().count()).toBe(2)
    const texts = await rows().allTextContents()
    expect(texts.some((t) => t.includes('404') && t.includes('/api/nope'))).toBe(true)
    expect(texts.some((t) => t.includes('405') && t.includes('PUT'))).toBe(true)
  })

  it('marks a request an MCP tool call made with the tool, in the list and the details', async () => {
    await openPanel()
    const minted = await api('/__sandbox/tokens/agent', {
      method: 'POST',
      body: JSON.stringify({ email: 'operator@fleet.test' }),
    })
    const { token } = (await minted.json()) as { token: string }
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listLayers', arguments: {} } }
    const res = await api('/mcp', {
      method: 'POST',
      body: JSON.stringify(call),
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
    })
    expect(res.status).toBe(200)
    await expect.poll(() => rows().count()).toBe(1)
    expect(await rows().first().locator('.via').textContent()).toBe('MCP tool listLayers')
    await rows().first().click()
    await expect.poll(() => page.locator('aside.details .facts .via').textContent()).toBe('MCP tool listLayers')
  })

  it('opens at /__sandbox/ as at /__sandbox', async () => {
    await page.goto(`${server.url}/__sandbox/`)
    await page.waitForSelector('.live.on')
  })

  it("exports the journal as HAR that Chromium's own devtools importer reads", async () => {
    await openPanel()
    await api('/api/notifications?limit=1')
    await api('/api/session-auth/sign-in/email', {
      method: 'POST',
      body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
    })
    await expect.poll(() => rows().count()).toBe(2)
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("Download HAR")')])
    expect(download.suggestedFilename()).toBe(`fleet-sandbox-${world}.har`)
    const har = JSON.parse(readFileSync((await download.path())!, 'utf8'))

    // DevTools' Network panel imports a HAR file with these two calls (front_end/models/har).
    const devtools = await context.newPage()
    await devtools.goto('devtools://devtools/bundled/devtools_app.html')
    // A string, so the test runner's transform leaves the page's own dynamic import alone.
    const imported: { url: string; method: string; status: number; sent: string | null; answer: string }[] =
      await devtools.evaluate(`(async (har) => {
      const { HARFormat, Importer } = await import('./models/har/har.js')
      const requests = Importer.Importer.requestsFromHARLog(new HARFormat.HARRoot(har).log)
      const out = []
      for (const r of requests) out.push({ url: r.url(), method: r.requestMethod, status: r.statusCode, sent: await r.requestFormData(), answer: (await r.requestContentData()).text })
      return out
    })(${JSON.stringify(har)})`)
    expect(imported).toHaveLength(2)
    expect(imported[0]).toMatchObject({
      url: `${server.url}/api/notifications?limit=1`,
      method: 'GET',
      status: 401,
      sent: null,
    })
    expect(imported[0].answer).toContain('authorization')
    expect(imported[1]).toMatchObject({
      method: 'POST',
      status: 200,
      sent: JSON.stringify({ email: 'admin@fleet.test', password: '[not kept]' }),
    })
    expect(JSON.parse(imported[1].answer).user.email).toBe('admin@fleet.test')
  })

  it('browses the data: collections with counts, pages of records, a record opened', async () => {
    await openPanel()
    await page.click('nav button:has-text("Data")')
    await page.click('button.chip:has-text("invoices")')
    await page.waitForSelector('table.records tbody tr')
    const total = Number(/(\d+) records/.exec((await page.textContent('.pages'))!)![1])
    expect(total).toBeGreaterThan(20)
    expect(await page.locator('table.records tbody tr').count()).toBe(20)
    const first = await page.locator('table.records tbody tr').first().textContent()
    await page.click('button:has-text("Next")')
    await expect.poll(() => page.textContent('.pages')).toContain('page 2 of')
    expect(await page.locator('table.records tbody tr').first().textContent()).not.toBe(first)
    await page.locator('table.records tbody tr').first().click()
    expect(await page.textContent('tr.record')).toContain('status')
    await page.selectOption('select[name=collection]', 'notifications')
    await expect.poll(() => page.textContent('.pages')).toContain('page 1 of')
  })

  it('downloads a snapshot and restores it: the world comes back as it was', async () => {
    await openPanel()
    await api('/__sandbox/clock', { method: 'POST', body: JSON.stringify({ set: '2027-03-03T03:03:03Z' }) })
    await page.click('nav button:has-text("Snapshot")')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('button:has-text("Download snapshot")'),
    ])
    const file = (await download.path())!
    const snapshot = JSON.parse(readFileSync(file, 'utf8'))
    expect(snapshot.clock.now).toMatch(/^2027-03-03T03:03:0/)

    await api('/__sandbox/reset', { method: 'POST', body: '{}' })
    const token = await signIn()
    const layers = await (await api('/api/layers', { headers: { authorization: `Bearer ${token}` } })).json()
    await api(`/api/layers/${layers.data[0].id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })
    await page.setInputFiles('input[name=snapshot]', file)
    await expect.poll(() => page.textContent('[role=status]')).toContain('Restored')
    const health = await (await api('/__sandbox/health')).json()
    expect(health.now).toMatch(/^2027-03-03T03:0/)
    // The sessions are the snapshot's too: the sign-in after it is gone.
    expect((await api('/api/layers', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401)
    const after = await (await api('/api/layers', { headers: { authorization: `Bearer ${await signIn()}` } })).json()
    expect(after.data.map((l: { id: string }) => l.id)).toContain(layers.data[0].id)
    // A broken file is refused with the sandbox's own message, and changes nothing.
    await page.setInputFiles('input[name=snapshot]', {
      name: 'broken.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"version":1'),
    })
    await expect
      .poll(() => page.textContent('.error'))
      .toContain(`World ${world}: PUT /__sandbox/snapshot: 400 body: must be valid UTF-8 JSON`)
  })

  it("after a bad x-sandbox-id shows that world's error and nothing of the previous world", async () => {
    await openPanel()
    await api('/api/notifications')
    await expect.poll(() => rows().count()).toBe(1)
    await page.fill('input[name=world]', 'not a valid id!')
    await page.click('button[type=submit]')
    // Whichever call answered first (health, clock or the event stream) names the world and the rule.
    await expect
      .poll(() => page.textContent('.error'))
      .toMatch(/^World not a valid id!: GET \/__sandbox\/(health|events|clock): 400 x-sandbox-id: must be 1 to 128/)
    expect(await rows().count()).toBe(0)
    expect(await page.textContent('.world')).not.toContain('seed')
    // Back to a good world: the error goes with the bad one.
    await page.fill('input[name=world]', world)
    await page.click('button[type=submit]')
    await expect.poll(() => rows().count()).toBe(1)
    expect(await page.locator('.error').count()).toBe(0)
  })

  it('lists the isolated sandboxes, opens one and drops one', async () => {
    await api('/api/notifications', {}, `${world}-other`)
    await openPanel()
    await page.click('nav button:has-text("Sandboxes")')
    await page.waitForSelector(`table.sandboxes tr[data-id="${world}-other"]`)
    await page.click(`table.sandboxes tr[data-id="${world}-other"] button:has-text("Open")`)
    await page.waitForSelector(`.world[data-world="${world}-other"]`)
    await page.click('nav button:has-text("Requests")')
    await expect.poll(() => rows().count()).toBe(1)
    await page.click('nav button:has-text("Sandboxes")')
    await page.click(`table.sandboxes tr[data-id="${world}"] button:has-text("Drop")`)
    await expect.poll(() => page.locator(`table.sandboxes tr[data-id="${world}"]`).count()).toBe(0)
    const list = await (await fetch(`${server.url}/__sandbox/sandboxes`)).json()
    expect(list.sandboxes.map((s: { id: string }) => s.id)).not.toContain(world)
  })

  it('shows what a request changed as a diff, the data as it was before it, and rewinds to before it', async () => {
    const token = await signIn()
    const auth = { authorization: `Bearer ${token}` }
    const layers = await (await api('/api/layers', { headers: auth })).json()
    const gone = layers.data[0].id
    expect((await api(`/api/layers/${gone}`, { method: 'DELETE', headers: auth })).status).toBe(200)
    await openPanel()
    await rows().filter({ hasText: 'DELETE' }).first().click()
    await page.waitForSelector('table.changes tbody tr')
    const change = await page.textContent('table.changes tbody tr.remove')
    expect(change).toContain('layers')
    expect(change).toContain(gone)
    expect(change).toContain('removed')
    // The world view as it was before the request: the layer is there.
    await page.click('nav button:has-text("Data")')
    await page.click('button.chip:has-text("layers")')
    await page.waitForSelector('table.records tbody tr')
    expect(await page.textContent('table.records')).not.toContain(gone)
    const id = (await (await api('/__sandbox/requests')).json()).requests.find(
      (e: { method: string }) => e.method === 'DELETE',
    ).id
    await page.selectOption('select[name=before]', String(id))
    await expect.poll(() => page.textContent('table.records')).toContain(gone)
    // Rewound from the request's details: the layer is back in the world.
    await page.click('nav button:has-text("Requests")')
    await rows().filter({ hasText: 'DELETE' }).first().click()
    await page.click('button:has-text("Rewind to before this")')
    await expect.poll(() => page.textContent('[role=status]')).toContain(`Rewound to before request ${id}`)
    const after = await (await api('/api/layers', { headers: auth })).json()
    expect(after.data.map((l: { id: string }) => l.id)).toContain(gone)
    await expect.poll(() => rows().filter({ hasText: '/__sandbox/rewind' }).count()).toBe(1)
  })

  it('settles a pending DTE', async () => {
    await openPanel()
    await page.click('nav button:has-text("DTE")')
    await page.waitForSelector('table.dtes tbody tr')
    const id = (await page.locator('table.dtes tbody tr').first().getAttribute('data-id'))!
    const before = await page.locator('table.dtes tbody tr').count()
    await page.click(`table.dtes tr[data-id="${id}"] button:has-text("Accept")`)
    await expect.poll(() => page.locator('table.dtes tbody tr').count()).toBe(before - 1)
    const { items } = await (await api('/__sandbox/collections/dtes?limit=100')).json()
    expect(items.find((d: { id: string }) => d.id === id).local_status).toBe('SII_ACCEPTED')
  })

  it('asks for the control token of a sandbox that needs one, and works once it is given', async () => {
    const guarded = await startServer({
      seed: 1,
      now: NOW,
      size: 'small',
      port: 0,
      host: '127.0.0.1',
      control: { token: 'sesame' },
    })
    try {
      await page.goto(`${guarded.url}/__sandbox`)
      await expect
        .poll(() => page.textContent('.error'))
        .toMatch(/^World default: GET \/__sandbox\/(health|events|clock): 401 x-sandbox-control-token/)
      await page.fill('input[name=token]', 'sesame')
      await page.press('input[name=token]', 'Enter')
      await page.waitForSelector('.live.on')
      expect(await page.locator('.error').count()).toBe(0)
      await fetch(`${guarded.url}/api/layers`)
      await expect.poll(() => rows().count()).toBe(1)
    } finally {
      await guarded.close()
    }
  })

  /** The page neither scrolls sideways at 390 px nor loses its header at 1280 px; then the screenshot. */
  async function atBothWidths(name: string) {
    await page.evaluate(() => document.querySelector('main')?.scrollTo(0, 0))
    await page.setViewportSize({ width: 1280, height: 860 })
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280)
    if (SHOTS) await shoot(page, `${name}.png`)
    await page.setViewportSize({ width: 390, height: 844 })
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    if (SHOTS) await shoot(page, `${name}-mobile.png`)
    await page.setViewportSize({ width: 1280, height: 860 })
  }

  it("on a desktop, the list and a request's details scroll on their own: the controls stay in view", async () => {
    await openPanel()
    const token = await signIn()
    for (let i = 0; i < 30; i++)
      await api(`/api/notifications?limit=${(i % 5) + 1}`, { headers: { authorization: `Bearer ${token}` } })
    await expect.poll(() => rows().count()).toBe(31)
    await rows().nth(1).click()
    const details = page.locator('aside.details')
    await details.locator('pre.body').first().waitFor()
    // Both panes are taller than their room, and scroll inside themselves.
    for (const pane of [details, page.locator('.requests .split > .scroll')]) {
      expect(await pane.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true)
      await pane.evaluate((el) => el.scrollTo(0, el.scrollHeight))
      expect(await pane.evaluate((el) => el.scrollTop)).toBeGreaterThan(0)
    }
    await page.mouse.wheel(0, 2000)
    expect(await page.evaluate(() => document.scrollingElement!.scrollTop)).toBe(0)
    const nav = (await page.locator('nav').boundingBox())!
    expect(nav.y).toBeGreaterThanOrEqual(0)
    expect(nav.y + nav.height).toBeLessThan(860)
    await details.evaluate((el) => el.scrollTo(0, 0))
    if (SHOTS) await shoot(page, 'inspector-desktop.png')
  })

  it("the world line's clock runs with the sandbox clock, and stops when it is frozen", async () => {
    await openPanel()
    const clock = page.locator('.world time.clock')
    const first = (await clock.getAttribute('datetime'))!
    await expect
      .poll(async () => Date.parse((await clock.getAttribute('datetime'))!))
      .toBeGreaterThan(Date.parse(first))
    await api('/__sandbox/clock', {
      method: 'POST',
      body: JSON.stringify({ set: '2030-02-02T02:02:02Z', freeze: true }),
    })
    await expect.poll(() => clock.getAttribute('datetime')).toBe('2030-02-02T02:02:02.000Z')
    expect(await page.textContent('.world')).toContain('2030-02-02T02:02:02Z (frozen)')
    await api('/__sandbox/clock', { method: 'POST', body: JSON.stringify({ freeze: false }) })
    await expect
      .poll(async () => Date.parse((await clock.getAttribute('datetime'))!))
      .toBeGreaterThan(Date.parse('2030-02-02T02:02:02Z'))
  })

  it('applies a scenario when it is ticked, and an option when it is committed: no Apply button to find', async () => {
    await openPanel()
    await page.click('nav button:has-text("Scenarios")')
    const scenarios = async () =>
      (await (await api('/__sandbox/scenarios')).json()).scenarios as {
        name: string
        active: boolean
        options: Record<string, unknown>
      }[]
    await page.locator('.scenario[data-name="empty"] input[type=checkbox]').check()
    await expect.poll(async () => (await scenarios()).find((s) => s.name === 'empty')!.active).toBe(true)
    await page.locator('.scenario[data-name="rate-limited"] input[type=checkbox]').check()
    await expect.poll(async () => (await scenarios()).find((s) => s.name === 'rate-limited')!.active).toBe(true)
    await page.locator('.scenario[data-name="rate-limited"] input.option[data-key="failures"]').fill('1')
    await page.press('.scenario[data-name="rate-limited"] input.option[data-key="failures"]', 'Enter')
    await expect.poll(async () => (await scenarios()).find((s) => s.name === 'rate-limited')!.options.failures).toBe(1)
    await expect.poll(() => page.textContent('.world')).toContain('scenarios: empty, rate-limited')
    await page.locator('.scenario[data-name="empty"] input[type=checkbox]').uncheck()
    await expect.poll(async () => (await scenarios()).find((s) => s.name === 'empty')!.active).toBe(false)
    expect(await page.locator('button:has-text("Apply")').count()).toBe(0)
    await atBothWidths('inspector-scenarios')
  })

  it('finds records by id and by text, shows the columns picked, and opens nested values in place', async () => {
    await openPanel()
    await page.click('nav button:has-text("Data")')
    await page.click('button.chip:has-text("invoices")')
    await page.waitForSelector('table.records tbody tr')
    const { items } = await (await api('/__sandbox/collections/invoices?limit=100')).json()
    const wanted = items[7] as { id: string; receiver: { name: string }; lines: unknown[] }
    // By id: that one record.
    await page.selectOption('form.find select[name=by]', 'id')
    await page.fill('form.find input[name=find]', wanted.id)
    await page.press('form.find input[name=find]', 'Enter')
    await expect.poll(() => page.textContent('.pages')).toContain('1 records')
    expect(await page.locator('table.records tbody tr').first().textContent()).toContain(wanted.id)
    // By text, in any case: every record that holds it.
    await page.selectOption('form.find select[name=by]', 'text')
    await page.fill('form.find input[name=find]', wanted.receiver.name.toUpperCase())
    await page.press('form.find input[name=find]', 'Enter')
    const holding = items.filter((r: object) =>
      JSON.stringify(r).toLowerCase().includes(wanted.receiver.name.toLowerCase()),
    ).length
    await expect.poll(() => page.textContent('.pages')).toContain(`${holding} records`)
    // Columns: six at first; pick one more, drop one.
    expect(await page.locator('table.records thead th').count()).toBe(6)
    await page.click('details.columns summary')
    await page.check('details.columns input[value="lines"]')
    await page.uncheck('details.columns input[value="clientId"]')
    const headers = await page.locator('table.records thead th').allTextContents()
    expect(headers).toContain('lines')
    expect(headers).not.toContain('clientId')
    await page.click('details.columns summary')
    // A nested value opens in place, as fields, not one line of JSON.
    const receiver = page.locator('table.records tbody tr').first().locator('details.value').first()
    await receiver.locator('summary').click()
    expect(await receiver.locator('dl dt').allTextContents()).toEqual(expect.arrayContaining(['name', 'taxId']))
    expect(await receiver.textContent()).not.toContain('{"')
    await atBothWidths('inspector-data')
    // Nothing found says so.
    await page.fill('form.find input[name=find]', 'no-such-text-anywhere')
    await page.press('form.find input[name=find]', 'Enter')
    await expect
      .poll(() => page.textContent('.empty'))
      .toContain('No record of invoices has the text "no-such-text-anywhere"')
  })

  it('is readable at 390 px: no horizontal scroll of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await openPanel()
    const token = await signIn()
    await api('/api/notifications?limit=2', { headers: { authorization: `Bearer ${token}` } })
    await api('/api/layers', {
      headers: { authorization: `Bearer ${token}`, 'x-sandbox-scenario': 'rate-limit-exhausted' },
    })
    await expect.poll(() => rows().count()).toBe(3)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    if (SHOTS) await shoot(page, 'inspector-mobile.png')
    await rows().first().click()
    await page.locator('aside.details pre.body').first().waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    if (SHOTS) await shoot(page, 'inspector-mobile-details.png')
  })
})

describe.skipIf(!chromiumAvailable())('the inspector in the browser runtime (fleet-sandbox/browser)', () => {
  let app: ReturnType<typeof buildPageApp>
  let server: StaticServer
  let browser: Browser
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    app = buildPageApp()
    server = await serveStatic(app.dir)
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    app?.remove()
  })
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    page = await context.newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterEach(() => context?.close())

  const panel = () => page.locator('#fleet-sandbox-panel')

  it('startSandbox({ panel: true }): a button and Alt+Shift+S open the panel in the page, live through the worker', async () => {
    expect(await open(page, server.url, { panel: true })).toEqual({ ok: true, resumed: false })
    // The app's styles do not reach the panel: it lives in a shadow root.
    await page.addStyleTag({
      content: 'button, table, * { color: rgb(255, 0, 0) !important; font-family: serif !important }',
    })
    const drawer = panel().locator('.drawer')
    expect(await drawer.isHidden()).toBe(true)
    await panel().locator('button.toggle').click()
    await panel().locator('.live.on').waitFor()
    expect(
      await panel()
        .locator('nav button')
        .first()
        .evaluate((b) => getComputedStyle(b).color),
    ).not.toBe('rgb(255, 0, 0)')

    // The app's own requests appear as they happen.
    expect((await call(page, 'GET', '/api/notifications?limit=1')).status).toBe(401)
    await expect.poll(() => panel().locator('table.journal tbody tr').count()).toBe(1)
    await panel().locator('table.journal tbody tr').first().click()
    await expect.poll(() => panel().locator('aside.details').textContent()).toContain('401')
    await expect.poll(() => panel().locator('aside.details').textContent()).toContain('/api/notifications?limit=1')

    await page.keyboard.press('Alt+Shift+S')
    expect(await drawer.isHidden()).toBe(true)
    await page.keyboard.press('Alt+Shift+S')
    expect(await drawer.isVisible()).toBe(true)

    // The data browser works through the worker too.
    await panel().locator('nav button:has-text("Data")').click()
    await panel().locator('button.chip:has-text("layers")').click()
    await panel().locator('table.records tbody tr').first().waitFor()
  })

  it('the Contracts tab downloads the Pact file of the page world, answered by the worker', async () => {
    expect(await open(page, server.url, { panel: true })).toEqual({ ok: true, resumed: false })
    const signedIn = await call(page, 'POST', '/api/session-auth/sign-in/email', {
      body: { email: 'admin@fleet.test', password: 'sandbox' },
    })
    const token = signedIn.headers['set-auth-token']
    expect((await call(page, 'GET', '/api/notifications?limit=1', { token })).status).toBe(200)
    // The route itself, through the worker: the page world's traffic, no credential in it.
    const pact = await call(page, 'GET', '/__sandbox/contracts/pact')
    expect(pact.status).toBe(200)
    expect(pact.body.metadata.pactSpecification.version).toBe('4.0')
    expect(pact.body.interactions.map((i: { description: string }) => i.description)).toContain(
      'listNotifications, no scenario, status 200',
    )
    expect(JSON.stringify(pact.body)).not.toContain(token)
    expect(JSON.stringify(pact.body)).not.toContain('"sandbox"')
    // And the tab in the page's panel.
    await panel().locator('button.toggle').click()
    await panel().locator('nav button:has-text("Contracts")').click()
    await panel().locator('section.contracts').waitFor()
    const [download] = await Promise.all([page.waitForEvent('download'), panel().locator('button.pact').click()])
    expect(download.suggestedFilename()).toBe('fleet-web-fleet-backoffice.json')
    const body = JSON.parse(readFileSync((await download.path())!, 'utf8'))
    expect(body.interactions.length).toBe(pact.body.interactions.length)
  })

  it('answers the inspector routes through the worker as the server does', async () => {
    expect(await open(page, server.url)).toEqual({ ok: true, resumed: false })
    await call(page, 'POST', '/api/session-auth/sign-in/email', {
      body: { email: 'admin@fleet.test', password: 'sandbox' },
    })
    const list = (await call(page, 'GET', '/__sandbox/requests')).body.requests
    const detail = await call(page, 'GET', `/__sandbox/requests/${list.at(-1).id}`)
    expect(detail.status).toBe(200)
    expect(JSON.parse(detail.body.request.body)).toEqual({ email: 'admin@fleet.test', password: '[not kept]' })
    expect(JSON.parse(detail.body.response.body).user.email).toBe('admin@fleet.test')
    const har = await call(page, 'GET', '/__sandbox/requests.har')
    expect(har.body.log.entries.at(-1).request).toMatchObject({
      method: 'POST',
      url: `${server.url}/api/session-auth/sign-in/email`,
    })
    expect((await call(page, 'GET', '/__sandbox/collections/invoices?limit=2')).body.items).toHaveLength(2)
    expect((await call(page, 'GET', '/__sandbox/collections/invoices?limit=101')).status).toBe(400)
    // The event stream is a streamed Response through the worker.
    const events = await page.evaluate(async () => {
      const abort = new AbortController()
      const res = await fetch('/__sandbox/events', { signal: abort.signal })
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
      let text = ''
      void fetch('/api/layers')
      while (!text.includes('event: request')) text += (await reader.read()).value
      abort.abort()
      return { type: res.headers.get('content-type'), text }
    })
    expect(events.type).toMatch(/^text\/event-stream/)
    expect(events.text).toMatch(/event: request\ndata: \{"id":\d+,"method":"GET","path":"\/api\/layers"/)
  })

  it('?sandbox-panel opens it at once; the event stream through the worker leaks no listener', async () => {
    await open(page, `${server.url}/?sandbox-panel`)
    await panel().locator('.live.on').waitFor()
    // Waits: the drawer may still be sliding in on a busy machine.
    await panel().locator('.drawer').waitFor({ state: 'visible' })
    const listeners = () =>
      page.evaluate(
        () =>
          (window as unknown as { sandbox: { sandbox(): { events: { size: number } } } }).sandbox.sandbox().events.size,
      )
    await expect.poll(listeners, { timeout: 15_000 }).toBe(1)
    // Another world: the stream of the first closes, one for the new world opens.
    await panel().locator('input[name=world]').fill('in-page-other')
    await panel().locator('button[type=submit]').click()
    await panel().locator('.world[data-world="in-page-other"]').waitFor()
    await expect.poll(listeners, { timeout: 15_000 }).toBe(0)
    await panel().locator('.live.on').waitFor()
    // Back, and the same world's request shows up live.
    await panel().locator('input[name=world]').fill('')
    await panel().locator('button[type=submit]').click()
    await panel().locator('.world[data-world="default"]').waitFor()
    await expect.poll(listeners, { timeout: 15_000 }).toBe(1)
    await call(page, 'GET', '/api/layers')
    await expect.poll(() => panel().locator('table.journal tbody tr').count(), { timeout: 15_000 }).toBeGreaterThan(0)
  })
  it('in the page: no control-token field, the OpenAPI document downloads, and ?sandbox-panel outlives a page without it', async () => {
    await open(page, `${server.url}/?sandbox-panel`)
    await panel().locator('.live.on').waitFor()
    expect(await panel().locator('input[name=world]').count()).toBe(1)
    expect(await panel().locator('input[name=token]').count()).toBe(0)
    // A new tab on /__sandbox/openapi.json would get the app's page: the document is downloaded.
    expect(await panel().locator('a:has-text("OpenAPI")').count()).toBe(0)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel().locator('button:has-text("OpenAPI")').click(),
    ])
    expect(download.suggestedFilename()).toBe('fleet-sandbox-openapi.json')
    const doc = JSON.parse(readFileSync((await download.path())!, 'utf8'))
    expect(doc.openapi).toMatch(/^3\.1/)
    expect(Object.keys(doc.paths)).toContain('/__sandbox/collections/{name}')
    // A link to a URL without the parameter, in the same tab: the panel is still there, open.
    await open(page, `${server.url}/`)
    await panel().locator('.live.on').waitFor()
    await expect.poll(() => panel().locator('.drawer').isVisible()).toBe(true)
    await call(page, 'GET', '/api/layers')
    await expect.poll(() => panel().locator('table.journal tbody tr').count()).toBeGreaterThan(0)
    await panel().locator('table.journal tbody tr').first().click()
    await panel().locator('aside.details pre.body').first().waitFor()
    if (SHOTS) await shoot(page, 'inspector-in-page.png')
    await page.setViewportSize({ width: 390, height: 844 })
    expect(
      await panel()
        .locator('.drawer')
        .evaluate((d) => d.scrollWidth <= d.clientWidth),
    ).toBe(true)
    if (SHOTS) await shoot(page, 'inspector-in-page-mobile.png')
    // ?sandbox-panel=off forgets it.
    await open(page, `${server.url}/?sandbox-panel=off`)
    expect(await panel().count()).toBe(0)
    await open(page, `${server.url}/`)
    expect(await panel().count()).toBe(0)
  })
})

async function shoot(page: Page, name: string) {
  const dir = join(ROOT, 'docs/images')
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, name), fullPage: false })
}
