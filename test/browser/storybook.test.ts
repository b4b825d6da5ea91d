import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, launch } from './support/chromium.js'
import { ROOT } from './support/page-app.js'
import { serveStatic, type StaticServer } from './support/static-server.js'

const STORY = 'notifications-notificationlist--'

/** The example's static Storybook build, as CI would publish it, with the worker from `fleet-sandbox init`. */
function buildStorybook(): string {
  const out = mkdtempSync(join(tmpdir(), 'fleet-sandbox-storybook-'))
  execFileSync(process.execPath, ['bin/fleet-sandbox.js', 'init', 'examples/storybook/public'], {
    cwd: ROOT,
    stdio: 'pipe',
  })
  execFileSync(
    process.execPath,
    [
      'node_modules/storybook/dist/bin/dispatcher.js',
      'build',
      '-c',
      'examples/storybook/.storybook',
      '-o',
      out,
      '--quiet',
    ],
    {
      cwd: ROOT,
      stdio: 'pipe',
      env: { ...process.env, NODE_ENV: 'production', STORYBOOK_DISABLE_TELEMETRY: '1', CI: 'true' },
    },
  )
  return out
}

describe.skipIf(!chromiumAvailable())('the Storybook example in headless Chromium', () => {
  let out: string
  let server: StaticServer
  let browser: Browser

  beforeAll(async () => {
    out = buildStorybook()
    server = await serveStatic(out)
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (out) rmSync(out, { recursive: true, force: true })
  })

  /** Waits for the component to leave its loading state; answers the state and the text shown. */
  async function settled(frame: Page | Frame) {
    const section = frame.locator('section[aria-label="Notifications"]:not([data-state="loading"])')
    await section.waitFor()
    return { state: await section.getAttribute('data-state'), text: await section.innerText() }
  }

  async function story(id: string) {
    const page = await browser.newPage()
    page.on('pageerror', (error) => console.error(`${id}: page error:`, error.message))
    await page.goto(`${server.url}/iframe.html?id=${STORY}${id}&viewMode=story`)
    return { page, ...(await settled(page)) }
  }

  it.each([
    ['healthy', 'ready', /\d+ unreviewed/],
    ['rate-limited', 'rate-limited', /Too many requests\. Retry in 1 s\./],
    ['rate-limited-without-retry-after', 'rate-limited', /Too many requests\. Try again later\./],
    ['session-expired', 'expired', /session has expired/],
    ['signed-out', 'expired', /session has expired/],
    ['empty', 'ready', /0 unreviewed\s+No notifications\./],
    ['idle-for-a-month', 'expired', /session has expired/],
    ['without-sandbox', 'error', /The API answered 404/],
    ['maintenance-window', 'error', /The API answered 503: maintenance for 5 minutes/],
    ['list-fails-once', 'error', /The API answered 500: the list is down/],
  ])('renders the %s story in its state', async (id, state, text) => {
    const shown = await story(id)
    try {
      expect(shown.state).toBe(state)
      expect(shown.text).toMatch(text)
      if (id === 'healthy') expect(await shown.page.locator('section[aria-label="Notifications"] li').count()).toBe(5)
    } finally {
      await shown.page.close()
    }
  })

  it("a story's override answers once, journaled with its fault; the next request is the sandbox's own", async () => {
    const { page } = await story('list-fails-once')
    try {
      const after = await page.evaluate(async () => {
        const journal = await (await fetch('/__sandbox/requests')).json()
        const token = (
          await fetch('/api/session-auth/sign-in/email', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
          })
        ).headers.get('set-auth-token')
        const again = await fetch('/api/notifications?limit=5', { headers: { authorization: `Bearer ${token}` } })
        return { faults: journal.requests.map((e: { faults: string[] }) => e.faults).flat(), status: again.status }
      })
      expect(after.faults.filter((f: string) => f.startsWith('override:'))).toHaveLength(1)
      expect(after.status).toBe(200)
    } finally {
      await page.close()
    }
  })

  it('lets the rate-limited story retry its way through, as the scenario promises', async () => {
    const { page } = await story('rate-limited')
    try {
      for (let attempt = 2; attempt <= 3; attempt++) {
        await page.getByRole('button', { name: 'Retry' }).click()
        expect((await settled(page)).state).toBe('rate-limited')
      }
      await page.getByRole('button', { name: 'Retry' }).click()
      expect((await settled(page)).state).toBe('ready')
    } finally {
      await page.close()
    }
  })

  it('isolates stories: a write in one is gone when the story opens again in the same preview', async () => {
    const page = await browser.newPage()
    try {
      await page.goto(`${server.url}/?path=/story/${STORY}healthy`)
      const preview = page.frameLocator('#storybook-preview-iframe')
      const frame = () => page.frame({ url: /iframe\.html/ })!
      await preview.locator('section[data-state="ready"]').waitFor()
      const initial = Number(await preview.getByTestId('unreviewed').innerText())
      await preview.getByRole('button', { name: 'Mark reviewed' }).first().click()
      await expect.poll(async () => Number(await preview.getByTestId('unreviewed').innerText())).toBe(initial - 1)

      await page.locator(`[data-item-id="${STORY}rate-limited"]`).click()
      expect((await settled(frame())).state).toBe('rate-limited')
      await page.locator(`[data-item-id="${STORY}healthy"]`).click()
      await preview.locator('section[data-state="ready"]').waitFor()
      expect(Number(await preview.getByTestId('unreviewed').innerText())).toBe(initial)
    } finally {
      await page.close()
    }
  })
})
