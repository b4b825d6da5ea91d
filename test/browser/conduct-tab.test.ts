import { describe, expect, it } from 'vitest'
import { chromiumAvailable } from './support/chromium.js'
import { openTab, usePanelPage } from './support/panel.js'

describe.skipIf(!chromiumAvailable())("the inspector's Conduct tab in headless Chromium", () => {
  const t = usePanelPage()

  const get = (path: string) =>
    fetch(t.server.url + path, {
      headers: { 'x-sandbox-id': 'conduct-tab', authorization: 'Bearer atk_sandbox_admin' },
    }).then((r) => r.text())

  it('lists findings linked to their journal rows, coverage as a table; the journal row is marked', async () => {
    await openTab(t.page, t.server.url, 'conduct-tab', 'Conduct')
    await expect.poll(() => t.page.textContent('section.conduct')).toContain('No finding')
    await get('/api/v1/technician/get/nope')
    await get('/api/v1/technician/get/nope')
    await expect.poll(() => t.page.locator('.findings li').count()).toBe(1)
    const finding = t.page.locator('.findings li').first()
    expect(await finding.getAttribute('data-rule')).toBe('retried-refusal')
    expect(await finding.textContent()).toContain('Retry rules 2')
    const row = t.page.locator('table.coverage tr[data-operation=getTechnician]')
    expect(await row.textContent()).toContain('404')
    // The link opens the request in the Requests tab, its row marked.
    await finding.locator('button[data-request="2"]').click()
    await t.page.waitForSelector('aside.details[aria-label="request 2"]')
    expect(await t.page.textContent('tr[data-id="2"] .conduct')).toBe('retried-refusal')
    expect(await t.page.textContent('aside.details')).toContain('retried-refusal')
  })
})
