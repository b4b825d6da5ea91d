import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { CHROMIUM, CHROMIUM_ARGS, chromiumAvailable } from './support/chromium.js'
import { NOW } from './support/page-app.js'
import { freshId } from '../support/client.js'

/**
 * A web page elsewhere: a host name Chromium resolves to this machine, so its page is served over
 * real HTTP and its requests to the sandbox are not stopped by Chromium's rules for public pages
 * reaching private addresses (which would make the refusal untested).
 */
const EVIL_HOST = 'evil.example'

/**
 * Issue 25 item 1 from a real page on another origin: what a page can send without a preflight
 * (a form post, a `no-cors` fetch) reaches the sandbox and is refused there; the sessions survive.
 */
describe.skipIf(!chromiumAvailable())(
  'a web page on another origin against the control API, in headless Chromium',
  () => {
    let server: RunningServer
    let browser: Browser
    let context: BrowserContext
    let page: Page
    let world = ''
    const log: string[] = []
    let evilServer: Server
    let evil: string
    let evilPage = ''

    beforeAll(async () => {
      server = await startServer({
        seed: 1,
        now: NOW,
        size: 'small',
        port: 0,
        host: '127.0.0.1',
        log: (line) => log.push(line),
      })
      evilServer = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(evilPage))
      await new Promise<void>((ok) => evilServer.listen(0, '127.0.0.1', ok))
      evil = `http://${EVIL_HOST}:${(evilServer.address() as AddressInfo).port}`
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${EVIL_HOST} 127.0.0.1`],
      })
    })
    afterAll(async () => {
      await browser?.close()
      await server?.close()
      evilServer?.closeAllConnections()
      evilServer?.close()
    })
    beforeEach(async () => {
      context = await browser.newContext()
      page = await context.newPage()
      world = freshId('foreign-page')
      // The sandbox's cookie, as a developer's browser holds it after using the sandbox.
      await context.addCookies([{ name: 'sandbox-id', value: world, url: server.url }])
    })
    afterEach(() => context?.close())

    async function signedIn(): Promise<() => Promise<number>> {
      const res = await fetch(`${server.url}/api/session-auth/sign-in/email`, {
        method: 'POST',
        headers: { 'x-sandbox-id': world, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
      })
      const token = res.headers.get('set-auth-token')!
      const alive = async () =>
        (
          await fetch(`${server.url}/api/notifications?limit=1`, {
            headers: { 'x-sandbox-id': world, authorization: `Bearer ${token}` },
          })
        ).status
      expect(await alive()).toBe(200)
      return alive
    }

    async function openEvil(html: string): Promise<void> {
      evilPage = html
      await page.goto(`${evil}/`)
    }

    /** The server's log line for the reset, once the request has arrived: proof it was sent. */
    const resetLine = async () => {
      await expect
        .poll(() => log.filter((l) => l.startsWith('POST /__sandbox/reset')).length, { timeout: 20_000 })
        .toBeGreaterThan(0)
      return log.splice(0).filter((l) => l.startsWith('POST /__sandbox/reset'))
    }

    it('a form post to reset arrives, is refused with 403, and the sessions survive', async () => {
      const alive = await signedIn()
      log.length = 0
      await openEvil(`<form method="post" action="${server.url}/__sandbox/reset"><input name="seed" value="2"></form>`)
      await Promise.all([page.waitForNavigation(), page.evaluate(() => document.forms[0].submit())])
      expect(await page.textContent('body')).toContain('may not use the control API')
      expect((await resetLine())[0]).toMatch(/^POST \/__sandbox\/reset 403 /)
      expect(await alive()).toBe(200)
    })

    it('a no-cors fetch to reset arrives, is refused with 403, and the sessions survive', async () => {
      const alive = await signedIn()
      log.length = 0
      await openEvil('<p>nothing to see</p>')
      const type = await page.evaluate(
        async (url) => (await fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include' })).type,
        `${server.url}/__sandbox/reset`,
      )
      expect(type).toBe('opaque')
      expect((await resetLine())[0]).toMatch(/^POST \/__sandbox\/reset 403 /)
      expect(await alive()).toBe(200)
    })

    it('a link to the panel still opens it, and the panel works on its own origin', async () => {
      await openEvil(`<a href="${server.url}/__sandbox">the sandbox</a>`)
      await Promise.all([page.waitForNavigation(), page.click('a')])
      expect(page.url()).toBe(`${server.url}/__sandbox`)
      await page.fill('input[name=world]', world)
      await page.click('button[type=submit]')
      await page.waitForSelector(`.world[data-world="${world}"]`)
      await page.waitForSelector('.live.on')
    })

    it('a frame of the panel on another origin is refused', async () => {
      log.length = 0
      await openEvil(`<iframe src="${server.url}/__sandbox"></iframe>`)
      await expect
        .poll(() => log.filter((l) => l.startsWith('GET /__sandbox ')).join('\n'), { timeout: 20_000 })
        .toMatch(/^GET \/__sandbox 403 /)
    })
  },
)
