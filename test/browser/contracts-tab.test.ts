import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { chromiumAvailable } from './support/chromium.js'
import { openTab, usePanelPage } from './support/panel.js'

/** The panel's Contracts tab (src/panel/contracts.ts): both files downloaded from the world's traffic. */
describe.skipIf(!chromiumAvailable())('the Contracts tab in the panel, in headless Chromium', () => {
  const world = 'contracts-tab'
  const t = usePanelPage(undefined, { acceptDownloads: true })

  const downloaded = async (button: string) => {
    const [download] = await Promise.all([t.page.waitForEvent('download'), t.page.click(button)])
    return { name: download.suggestedFilename(), body: JSON.parse(readFileSync((await download.path())!, 'utf8')) }
  }

  it('says a world with no traffic has no contract, then downloads the Pact file and the used OpenAPI', async () => {
    await openTab(t.page, t.server.url, world, 'Contracts')
    await t.page.waitForSelector('section.contracts')
    await expect.poll(() => t.page.textContent('section.contracts')).toContain('a signed-in user')
    await t.page.click('button.pact')
    await expect.poll(() => t.page.textContent('section.contracts .said')).toMatch(/409 journal: .*no API answer/)
    const res = await fetch(`${t.server.url}/api/layers`, {
      headers: { 'x-sandbox-id': world, authorization: 'Bearer atk_sandbox_admin' },
    })
    expect(res.status).toBe(200)
    await t.page.fill('section.contracts input >> nth=0', 'web')
    const pact = await downloaded('button.pact')
    expect(pact.name).toBe('web-fleet-backoffice.json')
    expect(pact.body.interactions.map((i: { description: string }) => i.description)).toEqual([
      'listLayers, no scenario, status 200',
    ])
    const openapi = await downloaded('button.used-openapi')
    expect(openapi.name).toBe('web-fleet-backoffice.openapi.json')
    expect(Object.keys(openapi.body.paths)).toEqual(['/api/layers'])
  })
})
