import { readFileSync } from 'node:fs'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { chromiumAvailable, launch } from './support/chromium.js'
import { NOW } from './support/page-app.js'

/** The panel's Contracts tab (src/panel/contracts.ts): both files downloaded from the world's traffic. */
describe.skipIf(!chromiumAvailable())('the Contracts tab in the panel, in headless Chromium', () => {
  let server: RunningServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  const world = 'contracts-tab'

  beforeAll(async () => {
    server = await startServer({ seed: 1, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
    browser = await launch()
    context = await browser.newContext({ acceptDownloads: true })
    page = await context.newPage()
  })
  afterAll(async () => {
    await context?.close()
    await browser?.close()
    await server?.close()
  })

  const downloaded = async (button: string) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)])
    return { name: download.suggestedFilename(), body: JSON.parse(readFileSync((await download.path())!, 'utf8')) }
  }

  it('says a world with no traffic has no contract, then downloads the Pact file and the used OpenAPI', async () => {
    await page.goto(`${server.url}/__sandbox`)
    await page.fill('input[name=world]', world)
    await page.click('button[type=submit]')
    await page.waitForSelector(`.world[data-world="${world}"]`)
    await page.click('nav button:has-text("Contracts")')
    await page.waitForSelector('section.contracts')
    await expect.poll(() => page.textContent('section.contracts')).toContain('a signed-in user')
    await page.click('button.pact')
    await expect.poll(() => page.textContent('section.contracts .said')).toMatch(/409 journal: .*no API answer/)
    const res = await fetch(`${server.url}/api/layers`, {
      headers: { 'x-sandbox-id': world, authorization: 'Bearer atk_sandbox_admin' },
    })
    expect(res.status).toBe(200)
    await page.fill('section.contracts input >> nth=0', 'web')
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
