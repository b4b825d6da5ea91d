import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, launch } from './support/chromium.js'
import { ROOT } from './support/page-app.js'

/**
 * A Vite app's own answers in the browser, as docs/your-own-answers.md shows them: a fixture
 * module replaced under Vite's hot update without losing the saved state, and a scenario file of
 * the app's own passed in the option `scenarios`.
 */
const types = (name: string) =>
  `export default [{ id: 'vt_1', name: '${name}', group: 'Carga' }, { id: 'vt_2', name: 'Furgón', group: 'Reparto' }]\n`

const SCENARIO = `import * as z from 'zod'
import { defineScenario } from 'fleet-sandbox'

export default defineScenario({
  name: 'team-maintenance',
  description: 'every API route answers 503 with a maintenance notice',
  advice: 'Show a maintenance banner',
  options: z.strictObject({ minutes: z.number().int().min(1).default(30) }),
  edge(ctx, o) {
    ctx.fault('team-maintenance')
    return { status: 503, body: { message: 'maintenance for ' + o.minutes + ' minutes' } }
  },
})
`

const MAIN = `import vehicleTypes from './sandbox/vehicle-types'
import maintenance from './sandbox/maintenance'

const { startSandbox } = await import('fleet-sandbox/browser')
const sandbox = await startSandbox({ seed: 1, quiet: true, fixtures: { vehicleTypes }, scenarios: [maintenance] })
// The fixture module changed: its collection is replaced, the rest of the state stays.
import.meta.hot?.accept('./sandbox/vehicle-types', (mod) => mod && sandbox.replaceFixtures({ vehicleTypes: mod.default }))
window.sandbox = sandbox
document.getElementById('app').textContent = 'ready'
`

function viteApp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-vite-own-'))
  mkdirSync(join(dir, 'src/sandbox'), { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules/fleet-sandbox'), 'dir')
  symlinkSync(join(ROOT, 'node_modules/zod'), join(dir, 'node_modules/zod'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'vite-own-app', private: true, type: 'module' }))
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>app</title></head><body><p id="app">loading</p><script type="module" src="/src/main.ts"></script></body></html>',
  )
  writeFileSync(join(dir, 'src/main.ts'), MAIN)
  writeFileSync(join(dir, 'src/sandbox/vehicle-types.ts'), types('Camión'))
  writeFileSync(join(dir, 'src/sandbox/maintenance.ts'), SCENARIO)
  execFileSync(process.execPath, [join(ROOT, 'bin/fleet-sandbox.js'), 'init', '.'], { cwd: dir, stdio: 'pipe' })
  return dir
}

const api = (page: Page, method: string, path: string, token?: string, body?: unknown) =>
  page.evaluate(
    async ({ method, path, token, body }) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (token) headers.authorization = `Bearer ${token}`
      const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
      return { status: res.status, token: res.headers.get('set-auth-token'), body: await res.json().catch(() => null) }
    },
    { method, path, token, body },
  )

describe.skipIf(!chromiumAvailable())('your own answers in a Vite app, in headless Chromium', () => {
  let dir: string
  let vite: ViteDevServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    dir = viteApp()
    const { createServer } = await import('vite')
    // preserveSymlinks: the linked package resolves inside node_modules, as an installed one does.
    vite = await createServer({
      root: dir,
      logLevel: 'error',
      resolve: { preserveSymlinks: true },
      server: { host: '127.0.0.1', port: 0, strictPort: false },
    })
    await vite.listen()
    browser = await launch()
    page = await browser.newPage()
    page.on('pageerror', (error) => console.error('page error:', error.message))
    await page.goto(vite.resolvedUrls!.local[0])
    await page.locator('#app', { hasText: 'ready' }).waitFor()
  })
  afterAll(async () => {
    await browser?.close()
    await vite?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const names = async (token: string) =>
    ((await api(page, 'GET', '/api/vehicle-types', token)).body as { data: { name: string }[] }).data.map((t) => t.name)

  it('a scenario file of the app joins the catalog and switches like a bundled one', async () => {
    const catalog = (await api(page, 'GET', '/__sandbox/scenarios')).body as { scenarios: { name: string }[] }
    expect(catalog.scenarios.map((s) => s.name)).toContain('team-maintenance')
    await page.evaluate(() =>
      (window as any).sandbox.use({ name: 'team-maintenance', options: { minutes: 5, routes: ['listLayers'] } }),
    )
    const token = (
      await api(page, 'POST', '/api/session-auth/sign-in/email', undefined, {
        email: 'admin@fleet.test',
        password: 'sandbox',
      })
    ).token!
    expect(await api(page, 'GET', '/api/layers', token)).toMatchObject({
      status: 503,
      body: { message: 'maintenance for 5 minutes' },
    })
    expect((await api(page, 'GET', '/api/vehicle-types', token)).status).toBe(200)
    await page.evaluate(() => (window as any).sandbox.use())
  })

  it('a changed fixture module replaces its collection under the hot update, keeping the state, and a reload keeps both', async () => {
    const token = (
      await api(page, 'POST', '/api/session-auth/sign-in/email', undefined, {
        email: 'admin@fleet.test',
        password: 'sandbox',
      })
    ).token!
    expect(await names(token)).toEqual(['Camión', 'Furgón'])
    // State of another collection, to be kept: a layer deleted.
    const layers = (await api(page, 'GET', '/api/layers', token)).body as { data: { id: string }[] }
    expect((await api(page, 'DELETE', `/api/layers/${layers.data[0].id}`, token)).status).toBe(200)
    await page.evaluate(() => ((window as any).notReloaded = true))

    writeFileSync(join(dir, 'src/sandbox/vehicle-types.ts'), types('Camión grande'))
    await expect.poll(() => names(token), { timeout: 30_000, interval: 200 }).toEqual(['Camión grande', 'Furgón'])
    expect(await page.evaluate(() => (window as any).notReloaded), 'the hot update reloaded the page').toBe(true)
    const after = (await api(page, 'GET', '/api/layers', token)).body as { data: { id: string }[] }
    expect(after.data.map((l) => l.id)).not.toContain(layers.data[0].id)

    // A reload right after: the saved state has both the new rows and the deletion, the session too.
    await page.reload()
    await page.locator('#app', { hasText: 'ready' }).waitFor()
    expect(await page.evaluate(() => (window as any).sandbox.resumed)).toBe(true)
    expect(await names(token)).toEqual(['Camión grande', 'Furgón'])
    const reloaded = (await api(page, 'GET', '/api/layers', token)).body as { data: { id: string }[] }
    expect(reloaded.data.map((l) => l.id)).toEqual(after.data.map((l) => l.id))
  })

  it('a broken fixture module is refused naming the field, and the last good rows stay', async () => {
    const token = (
      await api(page, 'POST', '/api/session-auth/sign-in/email', undefined, {
        email: 'admin@fleet.test',
        password: 'sandbox',
      })
    ).token!
    const error = await page.evaluate(() =>
      (window as any).sandbox.replaceFixtures({ vehicleTypes: [{ id: 'vt_9' }] }).then(
        () => 'replaced',
        (e: Error) => e.message,
      ),
    )
    expect(error).toMatch(/vehicleTypes.*name/)
    expect(await names(token)).toEqual(['Camión grande', 'Furgón'])
  })
})
