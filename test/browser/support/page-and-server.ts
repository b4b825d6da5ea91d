import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { type RunningServer, startServer } from '../../../src/adapters/server/index.js'
import { launch } from './chromium.js'
import { NOW, buildPageApp } from './page-app.js'
import { serveStatic, type StaticServer } from './static-server.js'

export interface PageAndServer {
  /** The built page app (the browser entry in a static site) and where it is served. */
  app: ReturnType<typeof buildPageApp>
  site: StaticServer
  /** A Node server beside it, for what crosses runtimes. */
  server: RunningServer
  browser: Browser
  /** A fresh context and page for each test. */
  context: BrowserContext
  page: Page
}

/** The page app in Chromium beside a Node server of `seed`: set up once, a new page per test. */
export function usePageAndServer(seed: number): PageAndServer {
  const t = {} as PageAndServer
  beforeAll(async () => {
    t.app = buildPageApp()
    t.site = await serveStatic(t.app.dir)
    t.server = await startServer({ seed, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
    t.browser = await launch()
  })
  afterAll(async () => {
    await t.browser?.close()
    await t.server?.close()
    await t.site?.close()
    t.app?.remove()
  })
  beforeEach(async () => {
    t.context = await t.browser.newContext({ viewport: { width: 1280, height: 860 } })
    t.page = await t.context.newPage()
    t.page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterEach(() => t.context?.close())
  return t
}
