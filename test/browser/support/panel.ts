import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { type RunningServer, type ServerOptions, startServer } from '../../../src/adapters/server/index.js'
import { launch } from './chromium.js'
import { NOW } from './page-app.js'

export interface PanelPage {
  server: RunningServer
  browser: Browser
  page: Page
}

/**
 * One Node server and one Chromium page for a file of the inspector's tab tests, closed after
 * them. `options`: the server's, beside the small seeded world every tab test starts from;
 * `context`: the page's (downloads, a viewport, headers).
 */
export function usePanelPage(
  options: () => Promise<Partial<ServerOptions>> | Partial<ServerOptions> = () => ({}),
  context: BrowserContextOptions = {},
): PanelPage {
  const it = {} as PanelPage
  beforeAll(async () => {
    it.server = await startServer({
      seed: 1,
      now: NOW,
      size: 'small',
      port: 0,
      host: '127.0.0.1',
      ...(await options()),
    })
    it.browser = await launch()
    it.page = await (await it.browser.newContext(context)).newPage()
    it.page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterAll(async () => {
    await it.browser?.close()
    await it.server?.close()
  })
  return it
}

/** The inspector on `world`, its live stream on, then the tab named `tab` opened. */
export async function openTab(page: Page, url: string, world: string, tab: string): Promise<void> {
  await page.goto(`${url}/__sandbox`)
  await page.fill('input[name=world]', world)
  await page.click('button[type=submit]')
  await page.waitForSelector('.live.on')
  await page.click(`nav button:has-text("${tab}")`)
}
