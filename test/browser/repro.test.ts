import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { chromiumAvailable } from './support/chromium.js'
import { call, open, signIn } from './support/page-app.js'
import { usePageAndServer } from './support/page-and-server.js'

/** Repro bundles across engines: made by the browser worker, replayed on the Node server; and the inspector's button. */
describe.skipIf(!chromiumAvailable())('repro bundles in headless Chromium', () => {
  const t = usePageAndServer(3)

  const control = async (path: string, init: RequestInit = {}, id = 'replayed') =>
    (
      await fetch(t.server.url + path, {
        ...init,
        headers: {
          'x-sandbox-id': id,
          'content-type': 'application/json',
          ...(init.headers as Record<string, string>),
        },
      })
    ).json()

  it('a bundle the browser worker made rebuilds the same world on the Node server and in the worker', async () => {
    expect(await open(t.page, t.site.url)).toEqual({ ok: true, resumed: false })
    const token = await signIn(t.page)
    expect((await call(t.page, 'POST', '/api/v1/billing/invoices/inv_acme_0014/publish', { token })).status).toBe(200)
    expect((await call(t.page, 'POST', '/__sandbox/clock', { body: { advanceBy: '3d' } })).status).toBe(200)
    expect(
      (await call(t.page, 'POST', '/api/v1/billing/invoices/inv_acme_0014/emit-dte', { token, body: {} })).status,
    ).toBeLessThan(300)
    expect(
      (await call(t.page, 'POST', '/api/portal/auth/magic-link', { body: { email: 'owner@acme.test' } })).status,
    ).toBe(200)
    const made = await call(t.page, 'GET', '/__sandbox/repro')
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const bundle = made.body
    expect(bundle.requests.map((r: { kind: string; part?: string }) => r.part ?? r.kind)).toEqual([
      'request',
      'clock',
      'request',
      'request',
    ])

    const replayed = await control('/__sandbox/repro', { method: 'POST', body: JSON.stringify(bundle) })
    expect(replayed).toMatchObject({ replayed: 4, digest: bundle.end.digest })
    expect((await control('/__sandbox/repro')).end.parts).toEqual(bundle.end.parts)
    // And in the browser worker itself: a world of its own, rebuilt in the page.
    const inPage = await call(t.page, 'POST', '/__sandbox/repro', {
      body: bundle,
      headers: { 'x-sandbox-id': 'page-replay' },
    })
    expect(inPage.status, JSON.stringify(inPage.body)).toBe(200)
    expect(
      (await call(t.page, 'GET', '/__sandbox/repro', { headers: { 'x-sandbox-id': 'page-replay' } })).body.end.parts,
    ).toEqual(bundle.end.parts)
    const invoice = await (
      await fetch(`${t.server.url}/api/v1/billing/invoices/inv_acme_0014`, {
        headers: { 'x-sandbox-id': 'replayed', authorization: 'Bearer atk_sandbox_admin' },
      })
    ).json()
    expect(invoice.data.status).toBe('published')
  })

  it('the inspector downloads the bundle, from a base after a restore, and shows why when a world has none', async () => {
    const world = 'panel-repro'
    const headers = {
      'x-sandbox-id': world,
      authorization: 'Bearer atk_sandbox_admin',
      'content-type': 'application/json',
    }
    expect(
      (await fetch(`${t.server.url}/api/v1/billing/invoices/inv_acme_0014/publish`, { method: 'POST', headers }))
        .status,
    ).toBe(200)
    await t.page.goto(`${t.server.url}/__sandbox`)
    await t.page.fill('input[name=world]', world)
    await t.page.click('button[type=submit]')
    await t.page.waitForSelector(`.world[data-world="${world}"]`)
    const downloadRepro = async () => {
      const [download] = await Promise.all([
        t.page.waitForEvent('download'),
        t.page.click('button:has-text("Download repro")'),
      ])
      expect(download.suggestedFilename()).toBe(`fleet-sandbox-${world}.repro.json`)
      return JSON.parse(readFileSync((await download.path())!, 'utf8'))
    }
    const bundle = await downloadRepro()
    expect(bundle.base).toBeUndefined()
    expect(bundle).toMatchObject({
      version: 2,
      seed: 3,
      requests: [
        {
          kind: 'request',
          method: 'POST',
          path: '/api/v1/billing/invoices/inv_acme_0014/publish',
          as: { kind: 'api-token', user: 'usr_acme_admin' },
        },
      ],
    })

    // A restored world has a bundle too: it begins at a base (docs/debugging.md "A bundle always there").
    const snapshot = await control('/__sandbox/snapshot', {}, world)
    await control('/__sandbox/snapshot', { method: 'PUT', body: JSON.stringify(snapshot) }, world)
    const restored = await downloadRepro()
    expect(restored.base.why).toMatch(/^the world was restored from a snapshot/)
    expect(restored.requests).toEqual([])

    // A world no bundle rebuilds (past the repro log's bound, docs/bounds.md): the panel shows the server's reason.
    const reason =
      'repro: no bundle can rebuild this world: the repro logs of all sandboxes together reached their bound (33554432 bytes, docs/bounds.md). POST /__sandbox/reset starts a world a bundle can rebuild'
    await t.page.route('**/__sandbox/repro', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({ statusCode: 409, error: 'Conflict', message: reason }),
      }),
    )
    await t.page.click('button:has-text("Download repro")')
    await expect
      .poll(() => t.page.textContent('.error'))
      .toContain(`World ${world}: GET /__sandbox/repro: 409 ${reason}`)
  })

  // The newcomer's flow: rewind, write, Download repro in the panel; the file rebuilds the world elsewhere.
  it('the inspector downloads a bundle after a rewind: it begins at a base, and its replay rebuilds the world', async () => {
    const world = 'panel-rewound'
    const send = (method: string, path: string, body?: unknown, id = world) =>
      fetch(t.server.url + path, {
        method,
        headers: { 'x-sandbox-id': id, authorization: 'Bearer atk_sandbox_admin', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    expect((await send('POST', '/api/v1/billing/invoices/inv_acme_0014/publish')).status).toBe(200)
    expect((await send('POST', '/api/v1/billing/invoices/inv_acme_0015/publish')).status).toBe(200)
    const journal = (await (await send('GET', '/__sandbox/requests')).json()).requests as {
      id: number
      method: string
      path: string
    }[]
    const second = journal.find((e) => e.path === '/api/v1/billing/invoices/inv_acme_0015/publish')!
    const rewound = await send('POST', '/__sandbox/rewind', { before: second.id })
    expect(rewound.status, await rewound.clone().text()).toBe(200)
    const status = async (id: string, sandbox = world) =>
      (await (await send('GET', `/api/v1/billing/invoices/${id}`, undefined, sandbox)).json()).data.status
    expect(await status('inv_acme_0015')).not.toBe('published')
    // Write again after the rewind: the undone write, done anew.
    expect((await send('POST', '/api/v1/billing/invoices/inv_acme_0015/publish')).status).toBe(200)

    await t.page.goto(`${t.server.url}/__sandbox`)
    await t.page.fill('input[name=world]', world)
    await t.page.click('button[type=submit]')
    await t.page.waitForSelector(`.world[data-world="${world}"]`)
    const [download] = await Promise.all([
      t.page.waitForEvent('download'),
      t.page.click('button:has-text("Download repro")'),
    ])
    expect(download.suggestedFilename()).toBe(`fleet-sandbox-${world}.repro.json`)
    const bundle = JSON.parse(readFileSync((await download.path())!, 'utf8'))
    expect(await t.page.locator('.error').count()).toBe(0)
    expect(bundle).toMatchObject({ version: 2, seed: 3 })
    expect(bundle.base.why).toMatch(/rewound/)
    expect(bundle.requests).toEqual([
      expect.objectContaining({
        kind: 'request',
        method: 'POST',
        path: '/api/v1/billing/invoices/inv_acme_0015/publish',
      }),
    ])

    const replayed = await send('POST', '/__sandbox/repro', bundle, 'panel-rewound-replayed')
    expect(replayed.status, await replayed.clone().text()).toBe(200)
    expect(await replayed.json()).toMatchObject({ digest: bundle.end.digest })
    expect((await control('/__sandbox/repro', {}, 'panel-rewound-replayed')).end.parts).toEqual(bundle.end.parts)
    for (const invoice of ['inv_acme_0014', 'inv_acme_0015'])
      expect(await status(invoice, 'panel-rewound-replayed'), invoice).toBe('published')

    // The panel takes the file back: Replay a repro bundle, in another world.
    const from = 'panel-rewound-from-file'
    await t.page.fill('input[name=world]', from)
    await t.page.click('button[type=submit]')
    await t.page.waitForSelector(`.world[data-world="${from}"]`)
    await t.page.click('nav button:has-text("Snapshot")')
    await t.page.setInputFiles('input[name=repro]', (await download.path())!)
    await expect
      .poll(async () => t.page.locator('p.ok[role=status]').textContent())
      .toMatch(/^Replayed .+: 1 steps, the world matches the bundle's \(sha256:/)
    for (const invoice of ['inv_acme_0014', 'inv_acme_0015'])
      expect(await status(invoice, from), invoice).toBe('published')
  })

  it('in the page: the in-page panel downloads a bundle after a rewind, from a base, that rebuilds the world on the Node server and in the worker', async () => {
    expect(await open(t.page, `${t.site.url}/?sandbox-panel`)).toEqual({ ok: true, resumed: false })
    const token = await signIn(t.page)
    expect((await call(t.page, 'POST', '/api/v1/billing/invoices/inv_acme_0014/publish', { token })).status).toBe(200)
    const second = await call(t.page, 'POST', '/api/v1/billing/invoices/inv_acme_0015/publish', { token })
    expect(second.status).toBe(200)
    const journal = (await call(t.page, 'GET', '/__sandbox/requests')).body.requests as { id: number; path: string }[]
    const id = journal.find((e) => e.path === '/api/v1/billing/invoices/inv_acme_0015/publish')!.id
    const rewound = await call(t.page, 'POST', '/__sandbox/rewind', { body: { before: id } })
    expect(rewound.status, JSON.stringify(rewound.body)).toBe(200)
    expect((await call(t.page, 'POST', '/api/v1/billing/invoices/inv_acme_0015/publish', { token })).status).toBe(200)

    const panel = t.page.locator('#fleet-sandbox-panel')
    await panel.locator('.live.on').waitFor()
    const [download] = await Promise.all([
      t.page.waitForEvent('download'),
      panel.locator('button:has-text("Download repro")').click(),
    ])
    expect(download.suggestedFilename()).toBe('fleet-sandbox-default.repro.json')
    const bundle = JSON.parse(readFileSync((await download.path())!, 'utf8'))
    expect(bundle.base.why).toMatch(/rewound/)
    expect(bundle.requests).toEqual([
      expect.objectContaining({
        kind: 'request',
        method: 'POST',
        path: '/api/v1/billing/invoices/inv_acme_0015/publish',
      }),
    ])

    const replayed = await fetch(`${t.server.url}/__sandbox/repro`, {
      method: 'POST',
      headers: { 'x-sandbox-id': 'page-rewound', 'content-type': 'application/json' },
      body: JSON.stringify(bundle),
    })
    expect(replayed.status, await replayed.clone().text()).toBe(200)
    expect(await replayed.json()).toMatchObject({ digest: bundle.end.digest })
    expect((await control('/__sandbox/repro', {}, 'page-rewound')).end.parts).toEqual(bundle.end.parts)
    const inPage = await call(t.page, 'POST', '/__sandbox/repro', {
      body: bundle,
      headers: { 'x-sandbox-id': 'page-rewound' },
    })
    expect(inPage.status, JSON.stringify(inPage.body)).toBe(200)
    expect(inPage.body).toMatchObject({ digest: bundle.end.digest })
  })
})
