import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { chromiumAvailable, launch } from './support/chromium.js'
import { NOW } from './support/page-app.js'
import { REDIRECT, pkce } from '../agents/flow.js'

/** Issue 32 items 1 and 4: the sign-in page a person uses, and the inspector's Agents tab. */
describe.skipIf(!chromiumAvailable())('agent sign-in and the Agents tab in headless Chromium', () => {
  let server: RunningServer
  let browser: Browser
  let page: Page
  const world = 'agents-tab'
  const headers = { 'x-sandbox-id': world }

  beforeAll(async () => {
    server = await startServer({ seed: 1, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
    browser = await launch()
    page = await (await browser.newContext({ extraHTTPHeaders: headers })).newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('a person signs in on the page and is sent back with a code; the tab lists the session without its tokens', async () => {
    const registered = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Assistant', redirect_uris: [REDIRECT] }),
    })
    const { client_id } = await registered.json()
    const { verifier, challenge } = pkce()
    let callback: URL | undefined
    await page.route(`${REDIRECT}**`, (route) => {
      callback = new URL(route.request().url())
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' })
    })
    const query = new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's1',
    })
    await page.goto(`${server.url}/oauth/authorize?${query}`)
    expect(await page.textContent('main')).toContain('Assistant asks to use the API as you')
    await page.fill('#email', 'operator@fleet.test')
    await page.fill('#password', 'wrong')
    await page.click('button[value=allow]')
    await expect.poll(() => page.textContent('.error')).toContain('Wrong e-mail or password.')
    await page.fill('#password', 'sandbox')
    await page.click('button[value=allow]')
    await expect.poll(() => callback?.searchParams.get('state')).toBe('s1')
    // The redirect's navigation ends before the next one starts (else goto below is interrupted by it).
    await page.waitForURL(`${REDIRECT}**`)
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      client_id,
      code: callback!.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    })
    const tokens = await (
      await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      })
    ).json()
    expect(tokens.refresh_token).toMatch(/^rt_/)

    await page.goto(`${server.url}/__sandbox`)
    await page.fill('input[name=world]', world)
    await page.click('button[type=submit]')
    await page.waitForSelector('.live.on')
    await page.click('nav button:has-text("Agents")')
    const rows = page.locator('table.agents tbody tr')
    await expect.poll(() => rows.count()).toBe(1)
    const row = await rows.first().textContent()
    expect(row).toContain('Assistant')
    expect(row).toContain('operator@fleet.test')
    expect(row).toContain('service:api')
    expect(row).toContain('active')
    const html = await page.content()
    for (const secret of [tokens.access_token, tokens.refresh_token, callback!.searchParams.get('code')!])
      expect(html).not.toContain(secret)
  })
})
