import { readFileSync } from 'node:fs'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { chromiumAvailable, launch } from './support/chromium.js'
import { NOW, buildPageApp, call, open, signIn } from './support/page-app.js'
import { serveStatic, type StaticServer } from './support/static-server.js'

/** Repro bundles across engines: made by the browser worker, replayed on the Node server; and the inspector's button. */
describe.skipIf(!chromiumAvailable())('repro bundles in headless Chromium', () => {
  let app: ReturnType<typeof buildPageApp>
  let statics: StaticServer
  let server: RunningServer
  let browser: Browser
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    app = buildPageApp()
    statics = await serveStatic(app.dir)
    server = await startServer({ seed: 3, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    await statics?.close()
    await server?.close()
    app?.remove()
  })
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    page = await context.newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterEach(() => context?.close())

  const control = async (path: string, init: RequestInit = {}, id = 'replayed') =>
    (await fetch(server.url + path, { ...init, headers: { 'x-sandbox-id': id, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } })).json()

  it('a bundle the browser worker made rebuilds the same world on the Node server and in the worker', async () => {
    expect(await open(page, statics.url)).toEqual({ ok: true, resumed: false })
    const token = await signIn(page)
    expect((await call(page, 'POST', '/api/v1/billing/invoices/inv_acme_0014/publish', { token })).status).toBe(200)
    expect((await call(page, 'POST', '/__sandbox/clock', { body: { advanceBy: '3d' } })).status).toBe(200)
    expect((await call(page, 'POST', '/api/v1/billing/invoices/inv_acme_0014/emit-dte', { token, body: {} })).status).toBeLessThan(300)
    expect((await call(page, 'POST', '/api/portal/auth/magic-link', { body: { email: 'owner@acme.test' } })).status).toBe(200)
    const made = await call(page, 'GET', '/__sandbox/repro')
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const bundle = made.body
    expect(bundle.requests.map((r: { kind: string }) => r.kind)).toEqual(['request', 'clock', 'request', 'request'])

    const replayed = await control('/__sandbox/repro', { method: 'POST', body: JSON.stringify(bundle) })
    expect(replayed).toMatchObject({ replayed: 4, digest: bundle.end.digest })
    expect((await control('/__sandbox/repro')).end.parts).toEqual(bundle.end.parts)
    // And in the browser worker itself: a world of its own, rebuilt in the page.
    const inPage = await call(page, 'POST', '/__sandbox/repro', { body: bundle, headers: { 'x-sandbox-id': 'page-replay' } })
    expect(inPage.status, JSON.stringify(inPage.body)).toBe(200)
    expect((await call(page, 'GET', '/__sandbox/repro', { headers: { 'x-sandbox-id': 'page-replay' } })).body.end.parts).toEqual(bundle.end.parts)
    const invoice = await (await fetch(`${server.url}/api/v1/billing/invoices/inv_acme_0014`, { headers: { 'x-sandbox-id': 'replayed', authorization: 'Bearer atk_sandbox_admin' } })).json()
    expect(invoice.data.status).toBe('published')
  })

  it('the inspector downloads the bundle, and shows why when there is none', async () => {
    const world = 'panel-repro'
    const headers = { 'x-sandbox-id': world, authorization: 'Bearer atk_sandbox_admin', 'content-type': 'application/json' }
    expect((await fetch(`${server.url}/api/v1/billing/invoices/inv_acme_0014/publish`, { method: 'POST', headers })).status).toBe(200)
    await page.goto(`${server.url}/__sandbox`)
    await page.fill('input[name=world]', world)
    await page.click('button[type=submit]')
    await page.waitForSelector(`.world[data-world="${world}"]`)
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("Download repro")')])
    expect(download.suggestedFilename()).toBe(`fleet-sandbox-${world}.repro.json`)
    const bundle = JSON.parse(readFileSync((await download.path())!, 'utf8'))
    expect(bundle).toMatchObject({ version: 1, seed: 3, requests: [{ kind: 'request', method: 'POST', path: '/api/v1/billing/invoices/inv_acme_0014/publish', as: { kind: 'api-token', user: 'usr_acme_admin' } }] })

    const snapshot = await control('/__sandbox/snapshot', {}, world)
    await control('/__sandbox/snapshot', { method: 'PUT', body: JSON.stringify(snapshot) }, world)
    await page.click('button:has-text("Download repro")')
    await expect.poll(() => page.textContent('.error')).toContain(`World ${world}: GET /__sandbox/repro: 409 repro: no bundle can rebuild this world: the world was restored from a snapshot`)
  })
})
