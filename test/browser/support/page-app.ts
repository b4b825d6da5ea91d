import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'

export const ROOT = resolve(import.meta.dirname, '../../..')
export const NOW = '2026-11-22T12:00:00.000Z'

export interface BundleSummary {
  file: string
  bytes: number
  /** The entry and the chunks it imports statically, each gzipped at `gzipLevel` (scripts/browser-bundle.mjs). */
  gzipBytes: number
  gzipLevel: number
  startFiles: string[]
  builtins: string[]
  packages: [string, number][]
}

/**
 * The test app, as a user would set it up: the esbuild bundle of `fleet-sandbox/browser`, the
 * worker script written by `fleet-sandbox init`, and a page that starts the sandbox before
 * anything else, with the options in `?opts=` (JSON).
 */
export function buildPageApp(): { dir: string; bundle: BundleSummary; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-page-'))
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'scripts/build-browser.mjs'), '--outdir', dir, '--json', '--top', '12'],
    { cwd: ROOT, encoding: 'utf8' },
  )
  const bundle = JSON.parse(out.trim().split('\n').at(-1)!) as BundleSummary
  execFileSync(process.execPath, [join(ROOT, 'bin/fleet-sandbox.js'), 'init', dir], { cwd: ROOT, encoding: 'utf8' })
  writeFileSync(join(dir, 'index.html'), PAGE)
  return { dir, bundle, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

const PAGE = `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>fleet-sandbox in the page</title>
<body><p id="status">starting</p>
<script type="module">
import { startSandbox } from './fleet-sandbox.js'
window.startSandbox = startSandbox
const opts = JSON.parse(new URLSearchParams(location.search).get('opts') ?? '{}')
const base = opts.origins?.[0] ?? ''
try {
  window.sandbox = await startSandbox({ now: '${NOW}', quiet: true, ...opts })
  const res = await fetch(base + '/__sandbox/health')
  window.firstAnswer = { ms: performance.now(), status: res.status, health: await res.json() }
  window.started = { ok: true, resumed: window.sandbox.resumed }
} catch (error) {
  window.started = { ok: false, error: String(error && error.message || error) }
}
document.getElementById('status').textContent = 'started'
</script>
</body></html>
`

export interface Answer {
  status: number
  /** Every header JavaScript can read from the response. */
  headers: Record<string, string>
  body: any
}

/** A request made by the page's own JavaScript, as the app would make it. */
export function call(
  page: Page,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return page.evaluate(
    async ({ method, path, options }) => {
      const headers: Record<string, string> = { ...options.headers }
      if (options.token) headers.authorization = `Bearer ${options.token}`
      if (options.body !== undefined) headers['content-type'] = 'application/json'
      const res = await fetch(path, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      })
      const text = await res.text()
      let body: unknown = text
      try {
        body = JSON.parse(text)
      } catch {
        // not JSON: a file of the static server
      }
      const read: Record<string, string> = {}
      res.headers.forEach((value, name) => (read[name] = value))
      return { status: res.status, headers: read, body }
    },
    { method, path, options },
  )
}

/** Opens the page and waits until startSandbox settled. */
export async function open(
  page: Page,
  url: string,
  opts: object = {},
): Promise<{ ok: boolean; resumed?: boolean; error?: string }> {
  const target = new URL(url)
  if (Object.keys(opts).length) target.searchParams.set('opts', JSON.stringify(opts))
  await page.goto(target.href)
  return waitStarted(page)
}

export async function waitStarted(page: Page) {
  await page.waitForFunction(() => (window as { started?: unknown }).started !== undefined)
  return page.evaluate(
    () => (window as unknown as { started: { ok: boolean; resumed?: boolean; error?: string } }).started,
  )
}

export async function reload(page: Page) {
  await page.reload()
  return waitStarted(page)
}

export async function signIn(page: Page, email = 'admin@fleet.test'): Promise<string> {
  const res = await call(page, 'POST', '/api/session-auth/sign-in/email', { body: { email, password: 'sandbox' } })
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(res.body)}`)
  return res.headers['set-auth-token']
}
