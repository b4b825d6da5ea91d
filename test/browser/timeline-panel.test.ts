import { describe, expect, it } from 'vitest'
import { chromiumAvailable } from './support/chromium.js'
import { openTab, usePanelPage } from './support/panel.js'

/** The panel's timeline (src/panel/timeline.ts): the schedule drawn on the clock, and a window added by hand. */
describe.skipIf(!chromiumAvailable())('the scenario timeline in the panel, in headless Chromium', () => {
  const world = 'timeline-panel'
  const t = usePanelPage(undefined, { viewport: { width: 1280, height: 860 } })

  const control = async (method: string, path: string, body?: unknown) =>
    (
      await fetch(`${t.server.url}/__sandbox${path}`, {
        method,
        headers: { 'x-sandbox-id': world, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json()

  it('shows each window, which one is in force, and adds a window the developer types', async () => {
    await control('POST', '/clock', { freeze: true })
    await control('PUT', '/scenarios', {
      active: [
        { name: 'rate-limited', until: '+2m' },
        { name: 'degraded', options: { rate: 1 }, from: '+2m', until: '+7m' },
      ],
    })
    await openTab(t.page, t.server.url, world, 'Scenarios')
    await t.page.waitForSelector('.timeline .lane')
    expect(
      await t.page
        .locator('.timeline .lane')
        .evaluateAll((lanes) => lanes.map((l) => [l.getAttribute('data-name'), l.getAttribute('data-active')])),
    ).toEqual([
      ['rate-limited', 'true'],
      ['degraded', 'false'],
    ])
    expect(await t.page.textContent('.timeline .lane[data-name=degraded]')).toContain('→')

    await t.page.selectOption('select[name=window-name]', 'empty')
    await t.page.fill('input[name=window-from]', '+10m')
    await t.page.fill('input[name=window-until]', '+15m')
    await t.page.click('button:has-text("Add window")')
    await t.page.waitForSelector('.timeline .lane[data-name=empty]')
    const { schedule } = await control('GET', '/scenarios')
    const start = Date.parse((await control('GET', '/clock')).now)
    expect(schedule.map((e: { name: string }) => e.name)).toEqual(['rate-limited', 'degraded', 'empty'])
    expect(schedule[2]).toEqual({
      name: 'empty',
      options: {},
      from: new Date(start + 600_000).toISOString(),
      until: new Date(start + 900_000).toISOString(),
    })

    // A tick in the list above keeps the windows: only entries without one are the checkboxes'.
    expect(await t.page.isChecked('.scenario[data-name=rate-limited] input[type=checkbox]')).toBe(false)
    await t.page.check('.scenario[data-name=slow] input[type=checkbox]')
    await expect
      .poll(async () => (await control('GET', '/scenarios')).schedule.map((e: { name: string }) => e.name))
      .toEqual(['slow', 'rate-limited', 'degraded', 'empty'])

    // A bad window is refused by the API and shown; the schedule stays.
    await t.page.fill('input[name=window-until]', '+5m')
    await t.page.click('button:has-text("Add window")')
    await expect.poll(() => t.page.textContent('body')).toContain('until: must be later than from')
    expect((await control('GET', '/scenarios')).schedule).toHaveLength(4)
  })
})
