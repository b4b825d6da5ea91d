import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, launch } from './support/chromium.js'
import { ROOT } from './support/page-app.js'
import { serveStatic } from './support/static-server.js'

/** The README's Vite recipe, word for word: the sandbox starts before the app's first request. */
const MAIN = `
async function enableSandbox() {
  // Only in development and previews: the production bundle never loads the sandbox.
  if (!import.meta.env.DEV && import.meta.env.VITE_SANDBOX !== 'on') return
  const { startSandbox } = await import('fleet-sandbox/browser')
  await startSandbox({ seed: 1 })
}

async function render() {
  const signIn = await fetch('/api/session-auth/sign-in/email', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
  })
  const token = signIn.headers.get('set-auth-token')
  const res = await fetch('/api/notifications?limit=3', { headers: { authorization: 'Bearer ' + token } })
  if (!res.ok) return void (document.getElementById('app')!.innerHTML = '<p>no data (' + res.status + ')</p>')
  const { data } = await res.json()
  document.getElementById('app')!.innerHTML = data.notifications.map((n: { name: string }) => '<li>' + n.name + '</li>').join('')
}

enableSandbox()
  // The app renders even when the sandbox did not start; the page also shows why.
  .catch((error) => console.error('fleet-sandbox did not start:', error))
  .then(render)
`

/** A Vite app that installed this package (a link to the repository's built `dist`). */
function viteApp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-vite-'))
  mkdirSync(join(dir, 'src'))
  mkdirSync(join(dir, 'node_modules'))
  symlinkSync(ROOT, join(dir, 'node_modules/fleet-sandbox'), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'vite-app', private: true, type: 'module' }))
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>app</title></head><body><ul id="app">loading</ul><script type="module" src="/src/main.ts"></script></body></html>',
  )
  writeFileSync(join(dir, 'src/main.ts'), MAIN)
  mkdirSync(join(dir, 'public'))
  writeFileSync(join(dir, 'public/robots.txt'), 'User-agent: *\n')
  // The README's step: the app's root, which the dev server serves and `vite build` does not ship.
  init(dir, '.')
  return dir
}

const init = (cwd: string, folder: string) =>
  execFileSync(process.execPath, [join(ROOT, 'bin/fleet-sandbox.js'), 'init', folder], { cwd, stdio: 'pipe' })

function viteBuild(dir: string, outDir: string, env: Record<string, string> = {}): { file: string; gzip: number }[] {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir, '--logLevel', 'error'],
    {
      cwd: dir,
      stdio: 'pipe',
      // vitest sets NODE_ENV=test, which Vite would take for a development build.
      env: { ...process.env, NODE_ENV: 'production', ...env },
    },
  )
  const assets = join(dir, outDir, 'assets')
  return readdirSync(assets)
    .filter((f) => f.endsWith('.js'))
    .map((f) => ({ file: f, gzip: gzipSync(readFileSync(join(assets, f))).length }))
}

describe.skipIf(!chromiumAvailable())('the Vite recipe in headless Chromium', () => {
  let dir: string
  let browser: Browser

  beforeAll(async () => {
    dir = viteApp()
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('the dev server serves the worker from the app root: the app renders data from the sandbox', async () => {
    const { createServer } = await import('vite')
    // preserveSymlinks: the linked package resolves inside node_modules, as an installed one does.
    const vite = await createServer({
      root: dir,
      logLevel: 'error',
      resolve: { preserveSymlinks: true },
      server: { host: '127.0.0.1', port: 0, strictPort: false },
    })
    await vite.listen()
    const page = await browser.newPage()
    try {
      page.on('pageerror', (error) => console.error('page error:', error.message))
      await page.goto(vite.resolvedUrls!.local[0])
      await page.locator('#app li').nth(2).waitFor()
      expect(await page.locator('#app li').count()).toBe(3)
    } finally {
      await page.close()
      await vite.close()
    }
  })

  it('a preview build with the sandbox renders data from it, with no server', async () => {
    const chunks = viteBuild(dir, 'dist', { VITE_SANDBOX: 'on' })
    // The preview's step: the worker into the built folder (docs/browser.md).
    init(dir, 'dist')
    console.log(
      `vite build with the sandbox: ${chunks.map((c) => `${c.file} ${(c.gzip / 1024).toFixed(1)} KB gzip`).join(', ')}`,
    )
    const server = await serveStatic(join(dir, 'dist'))
    const page = await browser.newPage()
    try {
      page.on('pageerror', (error) => console.error('page error:', error.message))
      await page.goto(server.url)
      await page.locator('#app li').nth(2).waitFor()
      expect(await page.locator('#app li').count()).toBe(3)
    } finally {
      await page.close()
      await server.close()
    }
  })

  it('a wrong ?sandbox-scenario= still shows the app, with the error in the console and over the page', async () => {
    viteBuild(dir, 'dist', { VITE_SANDBOX: 'on' })
    init(dir, 'dist')
    const server = await serveStatic(join(dir, 'dist'))
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    try {
      await page.goto(`${server.url}/?sandbox-scenario=rate-limted`)
      await page.locator('#app li').nth(2).waitFor()
      expect(await page.locator('[data-fleet-sandbox-notice]').textContent()).toContain(
        'unknown scenario "rate-limted"',
      )
      expect(errors.join('\n')).toContain('?sandbox-scenario: unknown scenario "rate-limted"')
    } finally {
      await page.close()
      await server.close()
    }
  })

  it('a sandbox that cannot start still shows the app, and says why', async () => {
    // A preview built without its step: no worker script in the folder.
    viteBuild(dir, 'dist-no-worker', { VITE_SANDBOX: 'on' })
    const server = await serveStatic(join(dir, 'dist-no-worker'))
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
    try {
      await page.goto(server.url)
      await page.locator('#app p').waitFor()
      expect(await page.locator('#app p').textContent()).toMatch(/^no data/)
      expect(await page.locator('[data-fleet-sandbox-notice]').textContent()).toContain(
        'fleet-sandbox did not start: the service worker at /mockServiceWorker.js did not start',
      )
      expect(errors.join('\n')).toContain('fleet-sandbox did not start:')
    } finally {
      await page.close()
      await server.close()
    }
  })

  it('a production build ships none of it: no sandbox code, no worker script, the public folder as it was', () => {
    const chunks = viteBuild(dir, 'dist-prod')
    expect(
      existsSync(join(dir, 'dist-prod/mockServiceWorker.js')),
      'the production build ships the worker script',
    ).toBe(false)
    expect(existsSync(join(dir, 'dist-prod/robots.txt'))).toBe(true)
    const code = chunks.map((c) => readFileSync(join(dir, 'dist-prod/assets', c.file), 'utf8')).join('\n')
    expect(code.includes('mockServiceWorker'), 'the production bundle contains the sandbox').toBe(false)
    expect(chunks.reduce((sum, c) => sum + c.gzip, 0)).toBeLessThan(4 * 1024)
  })
})
