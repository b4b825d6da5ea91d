import { afterAll, describe, expect, it } from 'vitest'
import { type FakeUpstream, startUpstream, UPSTREAM_TOKEN } from '../support/upstream.js'
import { chromiumAvailable } from './support/chromium.js'
import { openTab, usePanelPage } from './support/panel.js'

describe.skipIf(!chromiumAvailable())("the inspector's Drift tab in headless Chromium", () => {
  let upstream: FakeUpstream
  const t = usePanelPage(async () => {
    upstream = await startUpstream('planted')
    return { upstream: { url: upstream.url, token: UPSTREAM_TOKEN, routes: ['/api/layers', '/api/vehicle-types'] } }
  })
  afterAll(() => upstream?.close())

  const pass = (path: string) =>
    fetch(t.server.url + path, { headers: { 'x-sandbox-id': 'drift-tab', authorization: 'Bearer caller-tab' } }).then(
      (r) => r.text(),
    )
  const rows = () => t.page.locator('table.drift tbody tr')

  it('shows findings by operation, newest first, as passthrough answers are checked', async () => {
    await openTab(t.page, t.server.url, 'drift-tab', 'Drift')
    await expect.poll(() => t.page.textContent('section.drift')).toContain('Nothing checked yet')
    await pass('/api/layers')
    await expect.poll(() => rows().count()).toBe(1)
    expect(await rows().first().textContent()).toContain('missing /data/0/color')
    await pass('/api/vehicle-types')
    await expect.poll(() => rows().count()).toBe(2)
    expect(await rows().first().getAttribute('data-operation')).toBe('GET /api/vehicle-types')
    expect(await rows().first().textContent()).toContain('extra /data/0/legacyCode')
    expect(await t.page.content()).not.toContain('caller-tab')
  })
})
