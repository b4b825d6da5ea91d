import { describe, expect, it } from 'vitest'
import { chromiumAvailable } from './support/chromium.js'
import { openTab, usePanelPage } from './support/panel.js'
import { REDIRECT, pkce } from '../agents/flow.js'

/** Issue 32 items 1 and 4: the sign-in page a person uses, and the inspector's Agents tab. */
describe.skipIf(!chromiumAvailable())('agent sign-in and the Agents tab in headless Chromium', () => {
  const world = 'agents-tab'
  const headers = { 'x-sandbox-id': world }
  const t = usePanelPage(undefined, { extraHTTPHeaders: headers })

  it('a person signs in on the page and is sent back with a code; the tab lists the session without its tokens', async () => {
    const registered = await fetch(`${t.server.url}/oauth/register`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Assistant', redirect_uris: [REDIRECT] }),
    })
    const { client_id } = await registered.json()
    const { verifier, challenge } = pkce()
    let callback: URL | undefined
    await t.page.route(`${REDIRECT}**`, (route) => {
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
    await t.page.goto(`${t.server.url}/oauth/authorize?${query}`)
    expect(await t.page.textContent('main')).toContain('Assistant asks to use the API as you')
    await t.page.fill('#email', 'operator@fleet.test')
    await t.page.fill('#password', 'wrong')
    await t.page.click('button[value=allow]')
    await expect.poll(() => t.page.textContent('.error')).toContain('Wrong e-mail or password.')
    await t.page.fill('#password', 'sandbox')
    await t.page.click('button[value=allow]')
    await expect.poll(() => callback?.searchParams.get('state')).toBe('s1')
    // The redirect's navigation ends before the next one starts (else goto below is interrupted by it).
    await t.page.waitForURL(`${REDIRECT}**`)
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      client_id,
      code: callback!.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
    })
    const tokens = await (
      await fetch(`${t.server.url}/oauth/token`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      })
    ).json()
    expect(tokens.refresh_token).toMatch(/^rt_/)

    await openTab(t.page, t.server.url, world, 'Agents')
    const rows = t.page.locator('table.agents tbody tr')
    await expect.poll(() => rows.count()).toBe(1)
    const row = await rows.first().textContent()
    expect(row).toContain('Assistant')
    expect(row).toContain('operator@fleet.test')
    expect(row).toContain('service:api')
    expect(row).toContain('active')
    const html = await t.page.content()
    for (const secret of [tokens.access_token, tokens.refresh_token, callback!.searchParams.get('code')!])
      expect(html).not.toContain(secret)
  })
})
