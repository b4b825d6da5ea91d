import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { type FakeUpstream, startUpstream, UPSTREAM_TOKEN } from '../support/upstream.js'
import { chromiumAvailable, launch } from './support/chromium.js'
import { NOW } from './support/page-app.js'

describe.skipIf(!chromiumAvailable())("the inspector's Drift tab in headless Chromium", () => {
  let upstream: FakeUpstream
  let server: RunningServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    upstream = await startUpstream('planted')
    server = await startServer({
      seed: 1,
      now: NOW,
      size: 'small',
      port: 0,
      host: '127.0.0.1',
      upstream: { url: upstream.url, token: UPSTREAM_TOKEN, routes: ['/api/layers', '/api/vehicle-types'] },
    })
    browser = await launch()
    page = await (await browser.newContext()).newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await upstream?.close()
  })

  const pass = (path: string) =>
    fetch(server.url + path, { headers: { 'x-sandbox-id': 'drift-tab', authorization: 'Bearer caller-tab' } }).then(
      (r) => r.text(),
    )
  const rows = () => page.locator('table.drift tbody tr')

  it('shows findings by operation, newest first, as passthrough answers are checked', async () => {
    await page.goto(`${server.url}/__sandbox`)
    await page.fill('input[name=world]', 'drift-tab')
    await page.click('button[type=submit]')
    await page.waitForSelector('.live.on')
    await page.click('nav button:has-text("Drift")')
    await expect.poll(() => page.textContent('section.drift')).toContain('Nothing checked yet')
    await pass('/api/layers')
    await expect.poll(() => rows().count()).toBe(1)
    expect(await rows().first().textContent()).toContain('missing /data/0/color')
    await pass('/api/vehicle-types')
    await expect.poll(() => rows().count()).toBe(2)
    expect(await rows().first().getAttribute('data-operation')).toBe('GET /api/vehicle-types')
    expect(await rows().first().textContent()).toContain('extra /data/0/legacyCode')
    expect(await page.content()).not.toContain('caller-tab')
  })
})
