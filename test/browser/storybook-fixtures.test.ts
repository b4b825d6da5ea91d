import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as esbuild from 'esbuild'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, launch } from './support/chromium.js'
import { ROOT } from './support/page-app.js'
import { serveStatic, type StaticServer } from './support/static-server.js'

/**
 * `fleet-sandbox/storybook`'s loader with a `fixtures` option, as a preview would call it before
 * each story: every story's world (any seed) holds the fixture records.
 */
const PAGE = `<!doctype html><meta charset="utf-8"><title>loader</title><body>
<script type="module">
import { sandboxLoader } from './storybook.js'
const layer = { id: 'lay_story', clientId: 'cli_acme', name: 'From the preview', kind: 'zone', color: '#123456', visible: true, createdAt: '2026-01-01T00:00:00.000Z' }
const load = sandboxLoader({ now: '2026-11-22T12:00:00.000Z', fixtures: { layers: [layer] } })
const layers = async (token) => (await (await fetch('/api/layers', { headers: { authorization: 'Bearer ' + token } })).json()).data.map((l) => l.id)
try {
  const first = (await load({ parameters: { sandbox: { seed: 3 } } })).sandbox
  await fetch('/api/layers/lay_story', { method: 'DELETE', headers: { authorization: 'Bearer ' + first.token } })
  const afterDelete = await layers(first.token)
  const second = (await load({ parameters: { sandbox: { seed: 8, scenario: 'slow;ms=1' } } })).sandbox
  window.result = { first: first.seed, afterDelete, second: second.seed, layers: await layers(second.token) }
} catch (error) {
  window.result = { error: String(error && error.message || error) }
}
</script></body>`

describe.skipIf(!chromiumAvailable())('the Storybook loader with fixtures in headless Chromium', () => {
  let dir: string
  let server: StaticServer
  let browser: Browser

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-loader-'))
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: ['src/adapters/storybook/index.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      outfile: join(dir, 'storybook.js'),
      logLevel: 'silent',
    })
    execFileSync(process.execPath, [join(ROOT, 'bin/fleet-sandbox.js'), 'init', dir], { cwd: ROOT, stdio: 'pipe' })
    writeFileSync(join(dir, 'index.html'), PAGE)
    server = await serveStatic(dir)
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('every story starts from the fixtures, whatever its seed and whatever the story before did', async () => {
    const page = await browser.newPage()
    try {
      await page.goto(server.url)
      await page.waitForFunction(() => (window as { result?: unknown }).result !== undefined)
      const result = await page.evaluate(() => (window as unknown as { result: unknown }).result)
      expect(result).toEqual({ first: 3, afterDelete: [], second: 8, layers: ['lay_story'] })
    } finally {
      await page.close()
    }
  })
})
