import { describe, expect, it } from 'vitest'
import { chromiumAvailable } from './support/chromium.js'
import { call, open, reload, signIn } from './support/page-app.js'
import { usePageAndServer } from './support/page-and-server.js'

describe.skipIf(!chromiumAvailable())('overrides in headless Chromium', () => {
  const t = usePageAndServer(1)

  it('the service worker: the handle and POST /__sandbox/overrides both answer, kept across a reload right after the write; a cut connection fails the fetch', async () => {
    expect((await open(t.page, t.site.url)).ok).toBe(true)
    const token = await signIn(t.page)
    const created = await t.page.evaluate(() =>
      (window as any).sandbox.override({
        match: { method: 'GET', path: '/api/vehicle-types' },
        respond: { status: 500, body: { message: 'mine' } },
        times: 2,
        name: 'types-down',
      }),
    )
    expect(created).toMatchObject({ name: 'types-down', operation: 'listVehicleTypes', findings: expect.any(Array) })
    const first = await call(t.page, 'GET', '/api/vehicle-types', { token })
    expect(first.status).toBe(500)
    expect(first.headers['x-sandbox-fault']).toBe('override:types-down')
    expect(
      (
        await call(t.page, 'POST', '/__sandbox/overrides', {
          body: { match: { method: 'GET', path: '/api/layers' }, respond: { error: 'network' } },
        })
      ).status,
    ).toBe(201)
    // A reload right after the writes: the overrides and their counts were stored before the answers.
    expect((await reload(t.page)).resumed).toBe(true)
    const listed = (await call(t.page, 'GET', '/__sandbox/overrides')).body.overrides
    expect(listed.map((o: { name: string | null; used: number }) => [o.name, o.used])).toEqual([
      ['types-down', 1],
      [null, 0],
    ])
    expect((await call(t.page, 'GET', '/api/vehicle-types', { token })).status).toBe(500)
    expect((await call(t.page, 'GET', '/api/vehicle-types', { token })).status).toBe(200)
    const failed = await t.page.evaluate(
      (token) =>
        fetch('/api/layers', { headers: { authorization: `Bearer ${token}` } }).then(
          (r) => `answered ${r.status}`,
          (e: Error) => `failed: ${e.name}`,
        ),
      token,
    )
    expect(failed).toBe('failed: TypeError')
    const journal = (await call(t.page, 'GET', '/__sandbox/requests')).body.requests
    expect(
      journal
        .filter((e: { faults: string[] }) => e.faults.some((f) => f.startsWith('override:')))
        .map((e: { status: number }) => e.status),
    ).toEqual([500, 500, 0])
  })

  it('the inspector lists them with their counts, and a person adds, edits and removes one', async () => {
    const world = 'panel-overrides'
    const api = (path: string, init: RequestInit = {}) =>
      fetch(t.server.url + path, {
        ...init,
        headers: {
          'x-sandbox-id': world,
          'content-type': 'application/json',
          ...(init.headers as Record<string, string>),
        },
      })
    const token = (
      await api('/api/session-auth/sign-in/email', {
        method: 'POST',
        body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
      })
    ).headers.get('set-auth-token')!
    await t.page.goto(`${t.server.url}/__sandbox`)
    await t.page.fill('input[name=world]', world)
    await t.page.click('button[type=submit]')
    await t.page.waitForSelector(`.world[data-world="${world}"]`)
    await t.page.click('nav button:has-text("Overrides")')
    await expect.poll(() => t.page.textContent('.overrides')).toContain('No override in this world')
    // Add: the template, edited by hand.
    await t.page.click('button:has-text("Add an override")')
    const template = JSON.parse(await t.page.inputValue('textarea[name=override]'))
    await t.page.fill('textarea[name=override]', JSON.stringify({ ...template, name: 'by-hand', times: 3 }))
    await t.page.click('.editor button:has-text("Add")')
    await expect.poll(() => t.page.textContent('[role=status]')).toContain('Added by-hand')
    const row = t.page.locator('.overrides tbody tr')
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.first().textContent()).toContain('GET /api/vehicle-types')
    // Its count follows the requests as they happen.
    expect((await api('/api/vehicle-types', { headers: { authorization: `Bearer ${token}` } })).status).toBe(500)
    await expect.poll(() => row.first().locator('td.used').textContent()).toBe('1')
    // Edit: another status, the count kept.
    await row.first().locator('button:has-text("Edit")').click()
    const edited = JSON.parse(await t.page.inputValue('textarea[name=override]'))
    await t.page.fill(
      'textarea[name=override]',
      JSON.stringify({ ...edited, respond: { status: 503, body: { message: 'later' } } }),
    )
    await t.page.click('.editor button:has-text("Save")')
    await expect.poll(() => row.first().textContent()).toContain('503')
    expect(await row.first().locator('td.used').textContent()).toBe('1')
    expect((await api('/api/vehicle-types', { headers: { authorization: `Bearer ${token}` } })).status).toBe(503)
    // A wrong field is said, and nothing changes.
    await t.page.click('button:has-text("Add an override")')
    await t.page.fill(
      'textarea[name=override]',
      JSON.stringify({ match: { method: 'GET', path: '/api/nope' }, respond: { status: 200 } }),
    )
    await t.page.click('.editor button:has-text("Add")')
    await expect.poll(() => t.page.textContent('[role=alert]')).toContain('match.path: no route answers GET /api/nope')
    await t.page.click('.editor button:has-text("Cancel")')
    if (process.env.SCREENSHOTS === '1') await t.page.screenshot({ path: 'docs/images/inspector-overrides.png' })
    await row.first().locator('button:has-text("Remove")').click()
    await expect.poll(() => t.page.textContent('.overrides')).toContain('No override in this world')
    expect((await (await api('/__sandbox/overrides')).json()).overrides).toEqual([])
  })
})
