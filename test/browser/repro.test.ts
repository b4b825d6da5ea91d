import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { chromiumAvailable } from './support/chromium.js'
import { call, open, signIn } from './support/page-app.js'
import { usePageAndServer } from './support/page-and-server.js'

/** Repro bundles across engines: made by the browser worker, replayed on the Node server; and the inspector's button. */
describe.skipIf(!chromiumAvailable())('repro bundles in headless Chromium', () => {
  const t = usePageAndServer(3)

  const control = async (path: string, init: RequestInit = {}, id = 'replayed') =>
    (await fetch(t.server.url + path, { ...init, headers: { 'x-sandbox-id': id, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } })).json()

  it('a bundle the browser worker made rebuilds the same world on the Node server and in the worker', async () => {
    expect(await open(t.page, t.site.url)).toEqual({ ok: true, resumed: false })
    const token = await signIn(t.page)
    expect((await call(t.page, 'POST', '/api/v1/billing/invoices/inv_acme_0014/publish', { token })).status).toBe(200)
    expect((await call(t.page, 'POST', '/__sandbox/clock', { body: { advanceBy: '3d' } })).status).toBe(200)
    expect((await call(t.page, 'POST', '/api/v1/billing/invoices/inv_acme_0014/emit-dte', { token, body: {} })).status).toBeLessThan(300)
    expect((await call(t.page, 'POST', '/api/portal/auth/magic-link', { body: { email: 'owner@acme.test' } })).status).toBe(200)
    const made = await call(t.page, 'GET', '/__sandbox/repro')
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const bundle = made.body
    expect(bundle.requests.map((r: { kind: string }) => r.kind)).toEqual(['request', 'clock', 'request', 'request'])

    const replayed = await control('/__sandbox/repro', { method: 'POST', body: JSON.stringify(bundle) })
    expect(replayed).toMatchObject({ replayed: 4, digest: bundle.end.digest })
    expect((await control('/__sandbox/repro')).end.parts).toEqual(bundle.end.parts)
    // And in the browser worker itself: a world of its own, rebuilt in the page.
    const inPage = await call(t.page, 'POST', '/__sandbox/repro', { body: bundle, headers: { 'x-sandbox-id': 'page-replay' } })
    expect(inPage.status, JSON.stringify(inPage.body)).toBe(200)
    expect((await call(t.page, 'GET', '/__sandbox/repro', { headers: { 'x-sandbox-id': 'page-replay' } })).body.end.parts).toEqual(bundle.end.parts)
    const invoice = await (await fetch(`${t.server.url}/api/v1/billing/invoices/inv_acme_0014`, { headers: { 'x-sandbox-id': 'replayed', authorization: 'Bearer atk_sandbox_admin' } })).json()
    expect(invoice.data.status).toBe('published')
  })

  it('the inspector downloads the bundle, and shows why when there is none', async () => {
    const world = 'panel-repro'
    const headers = { 'x-sandbox-id': world, authorization: 'Bearer atk_sandbox_admin', 'content-type': 'application/json' }
    expect((await fetch(`${t.server.url}/api/v1/billing/invoices/inv_acme_0014/publish`, { method: 'POST', headers })).status).toBe(200)
    await t.page.goto(`${t.server.url}/__sandbox`)
    await t.page.fill('input[name=world]', world)
    await t.page.click('button[type=submit]')
    await t.page.waitForSelector(`.world[data-world="${world}"]`)
    const [download] = await Promise.all([t.page.waitForEvent('download'), t.page.click('button:has-text("Download repro")')])
    expect(download.suggestedFilename()).toBe(`fleet-sandbox-${world}.repro.json`)
    const bundle = JSON.parse(readFileSync((await download.path())!, 'utf8'))
    expect(bundle).toMatchObject({ version: 1, seed: 3, requests: [{ kind: 'request', method: 'POST', path: '/api/v1/billing/invoices/inv_acme_0014/publish', as: { kind: 'api-token', user: 'usr_acme_admin' } }] })

    const snapshot = await control('/__sandbox/snapshot', {}, world)
    await control('/__sandbox/snapshot', { method: 'PUT', body: JSON.stringify(snapshot) }, world)
    await t.page.click('button:has-text("Download repro")')
    await expect.poll(() => t.page.textContent('.error')).toContain(`World ${world}: GET /__sandbox/repro: 409 repro: no bundle can rebuild this world: the world was restored from a snapshot`)
  })
})
