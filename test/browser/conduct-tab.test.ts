import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { chromiumAvailable, launch } from './support/chromium.js'
import { NOW } from './support/page-app.js'

describe.skipIf(!chromiumAvailable())("the inspector's Conduct tab in headless Chromium", () => {
  let server: RunningServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    server = await startServer({ seed: 1, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
    browser = await launch()
    page = await (await browser.newContext()).newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  const get = (path: string) =>
    fetch(server.url + path, {
      headers: { 'x-sandbox-id': 'conduct-tab', authorization: 'Bearer atk_sandbox_admin' },
    }).then((r) => r.text())

  it('lists findings linked to their journal rows, coverage as a table; the journal row is marked', async () => {
    await page.goto(`${server.url}/__sandbox`)
    await page.fill('input[name=world]', 'conduct-tab')
    await page.click('button[type=submit]')
    await page.waitForSelector('.live.on')
    await page.click('nav button:has-text("Conduct")')
    await expect.poll(() => page.textContent('section.conduct')).toContain('No finding')
    await get('/api/v1/technician/get/nope')
    await get('/api/v1/technician/get/nope')
    await expect.poll(() => page.locator('.findings li').count()).toBe(1)
    const finding = page.locator('.findings li').first()
    expect(await finding.getAttribute('data-rule')).toBe('retried-refusal')
    expect(await finding.textContent()).toContain('Retry rules 2')
    const row = page.locator('table.coverage tr[data-operation=getTechnician]')
    expect(await row.textContent()).toContain('404')
    // The link opens the request in the Requests tab, its row marked.
    await finding.locator('button[data-request="2"]').click()
    await page.waitForSelector('aside.details[aria-label="request 2"]')
    expect(await page.textContent('tr[data-id="2"] .conduct')).toBe('retried-refusal')
    expect(await page.textContent('aside.details')).toContain('retried-refusal')
  })
})
