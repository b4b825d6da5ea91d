import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, launch } from './support/chromium.js'
import { buildPageApp, call, open, signIn } from './support/page-app.js'
import { serveStatic, type StaticServer } from './support/static-server.js'

/** The conduct in the browser's worker: the page's own requests judged in its world, as on the other runtimes. */
describe.skipIf(!chromiumAvailable())("the app's conduct under the browser's worker", () => {
  let app: ReturnType<typeof buildPageApp>
  let server: StaticServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    app = buildPageApp()
    server = await serveStatic(app.dir)
    browser = await launch()
    page = await (await browser.newContext()).newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    app?.remove()
  })

  it('judges the page: a resent 404 and a looped 401 are findings, a sign-in after the 401 is none; reset clears it', async () => {
    expect(await open(page, server.url)).toEqual({ ok: true, resumed: false })
    const token = await signIn(page)
    for (let i = 0; i < 2; i++)
      expect((await call(page, 'GET', '/api/v1/technician/get/nope', { token })).status).toBe(404)
    for (let i = 0; i < 2; i++)
      expect((await call(page, 'GET', '/api/notifications', { token: 'expired' })).status).toBe(401)
    const report = await call(page, 'GET', '/__sandbox/conduct')
    expect(report.status).toBe(200)
    expect(report.body.findings.map((f: { rule: string; spec: string }) => [f.rule, f.spec])).toEqual([
      ['retried-refusal', 'Retry rules 2'],
      ['looped-on-401', 'Authentication 4'],
    ])
    const journal = (await call(page, 'GET', '/__sandbox/requests')).body.requests
    expect(
      journal.filter((e: { conduct?: string[] }) => e.conduct).map((e: { conduct: string[] }) => e.conduct),
    ).toEqual([['retried-refusal'], ['looped-on-401']])
    expect((await call(page, 'POST', '/__sandbox/reset', { body: {} })).status).toBe(200)

    // Done right: a new sign-in after the 401, the read with the new token.
    expect((await call(page, 'GET', '/api/notifications', { token: 'expired' })).status).toBe(401)
    const again = await signIn(page)
    expect((await call(page, 'GET', '/api/notifications', { token: again })).status).toBe(200)
    const right = (await call(page, 'GET', '/__sandbox/conduct')).body
    expect(right.findings).toEqual([])
    expect(right.coverage.find((c: { operationId: string }) => c.operationId === 'listNotifications').met).toEqual([
      { status: 200, request: expect.any(Number) },
      { status: 401, request: expect.any(Number) },
    ])
  })
})
