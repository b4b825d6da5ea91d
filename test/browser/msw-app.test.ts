import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, launch } from './support/chromium.js'
import { ROOT } from './support/page-app.js'
import { MSW3, noMsw3, unbuilt } from '../support/needs.js'

/**
 * examples/msw-app, an app that already uses msw with a handler of its own, installing the
 * packed fleet-sandbox: with msw 2 on every Node line, with msw 3 where msw 3 runs (Node 22.12+,
 * its engines; CI's Node 26 leg installs it in a folder of its own, MSW3). The app's msw decides:
 * fleet-sandbox brings none of its own.
 */
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
/** Each msw's folder, from the repository's root. */
const MSW2 = 'node_modules/msw'
const withMsw3 = !noMsw3()
const lines = [{ msw: 2, dir: MSW2 }, ...(withMsw3 ? [{ msw: 3, dir: MSW3 }] : [])]
const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  })
/** Links `from` (a folder under the repository's root) into the app's node_modules as `name`. */
const link = (app: string, name: string, from: string) => {
  mkdirSync(dirname(join(app, 'node_modules', name)), { recursive: true })
  symlinkSync(join(ROOT, from), join(app, 'node_modules', name), 'dir')
}

/** A test suite's own msw/node server with a handler of its own, joined by the sandbox. */
const NODE_SUITE = `
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { setupSandboxServer } from 'fleet-sandbox/node'

const server = setupServer(http.get('https://weather.example.test/today', () => HttpResponse.json({ sky: 'clear' })))
const sandbox = setupSandboxServer({ server, origins: ['http://api.test'] })
await sandbox.listen()
const signIn = await fetch('http://api.test/api/session-auth/sign-in/email', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }) })
const { sky } = await (await fetch('https://weather.example.test/today')).json()
server.resetHandlers()
const layers = await fetch('http://api.test/api/layers', { headers: { authorization: 'Bearer ' + signIn.headers.get('set-auth-token') } })
await sandbox.reset()
const again = await fetch('http://api.test/api/session-auth/sign-in/email', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }) })
sandbox.close()
console.log(JSON.stringify({ signIn: signIn.status, sky, afterReset: again.status, layers: layers.status }))
`

/** What the docs warn against: the app's worker started on its own, and the sandbox's beside it. */
const CLASH = `
import { worker } from './mocks/browser'
await worker.start({ onUnhandledRequest: 'bypass', quiet: true })
const { startSandbox } = await import('fleet-sandbox/browser')
await startSandbox().then(() => ((window as unknown as { started: string }).started = 'started'), () => undefined)
`

/** The example in a folder of its own, the packed package installed (its dependencies linked from this repository: no network), and the given msw. */
function install(msw: number, mswDir: string): { app: string; init: string } {
  const app = mkdtempSync(join(tmpdir(), `fleet-sandbox-msw${msw}-app-`))
  for (const part of ['index.html', 'src', 'tsconfig.json'])
    cpSync(join(ROOT, 'examples/msw-app', part), join(app, part), { recursive: true })
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'msw-app', private: true, type: 'module' }))
  const tarball = join(
    app,
    run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', app], ROOT).trim().split('\n').at(-1)!,
  )
  for (const dep of Object.keys(pkg.dependencies)) link(app, dep, `node_modules/${dep}`)
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', tarball], app)
  // Linked after the install, which prunes what the app does not list: the app's own msw, React.
  link(app, 'msw', mswDir)
  for (const dep of ['react', 'react-dom']) link(app, dep, `node_modules/${dep}`)
  // The example's postinstall, before the dev server starts (it lists the public files it serves).
  const init = run(
    process.execPath,
    [join(app, 'node_modules/fleet-sandbox/bin/fleet-sandbox.js'), 'init', 'public'],
    app,
  )
  return { app, init }
}

describe.skipIf(!chromiumAvailable() || unbuilt('dist/src/adapters/browser/index.js'))(
  'an app on msw that adds fleet-sandbox to its own worker (examples/msw-app)',
  () => {
    let browser: Browser
    beforeAll(async () => {
      browser = await launch()
    })
    afterAll(() => browser?.close())

    describe.each(lines)('on msw $msw', ({ msw, dir }) => {
      let app: string
      let init: string
      let vite: ViteDevServer
      beforeAll(async () => {
        ;({ app, init } = install(msw, dir))
        const { createServer } = await import('vite')
        vite = await createServer({
          root: app,
          logLevel: 'error',
          server: { host: '127.0.0.1', port: 0, strictPort: false },
        })
        await vite.listen()
      }, 300_000)
      afterAll(async () => {
        await vite?.close()
        if (app) rmSync(app, { recursive: true, force: true })
      })

      const open = async (): Promise<Page> => {
        const page = await (await browser.newContext()).newPage()
        page.on('pageerror', (error) => console.error('page error:', error.message))
        await page.goto(vite.resolvedUrls!.local[0])
        return page
      }

      it('installing wrote nothing into the app; init writes the worker script of the msw the app resolves', () => {
        const installed = JSON.parse(readFileSync(join(app, 'node_modules/fleet-sandbox/package.json'), 'utf8'))
        expect(installed.dependencies.msw).toBeUndefined()
        expect(installed.peerDependencies.msw).toMatch(/\^2.*\|\|.*\^3/)
        const version = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')).version
        expect(init).toContain(`(msw ${version}, the msw your app resolves)`)
        expect(readFileSync(join(app, 'public/mockServiceWorker.js'), 'utf8')).toContain(
          `const PACKAGE_VERSION = '${version}'`,
        )
      })

      it("one service worker answers the sandbox (sign-in, a list, a write kept across a reload) and the app's own handler", async () => {
        const page = await open()
        try {
          await expect.poll(() => page.locator('#notifications li').count()).toBe(3)
          await expect.poll(() => page.locator('#sky').textContent()).toBe('sky: clear')
          const first = page.locator('#notifications li').first()
          const id = await first.textContent()
          await first.locator('button').click()
          await expect.poll(() => first.getAttribute('data-status')).toBe('reviewed')
          await page.reload()
          await expect.poll(() => page.locator('#notifications li').count()).toBe(3)
          expect(await page.locator('#notifications li').first().getAttribute('data-status')).toBe('reviewed')
          expect((await page.locator('#notifications li').first().textContent())?.split(' (')[0]).toBe(
            id?.split(' (')[0],
          )
          await expect.poll(() => page.locator('#sky').textContent()).toBe('sky: clear')
          expect(await page.locator('#error').count()).toBe(0)
        } finally {
          await page.context().close()
        }
      })

      it("keeps the spec's retry rules (src/api.ts): rate-limited, it waits the backoff and its world has no finding; ?careless has exactly the expected ones", async () => {
        const page = await open()
        const control = (method: string, path: string, body?: unknown) =>
          page.evaluate(
            async ({ method, path, body }) => {
              const res = await fetch(path, {
                method,
                headers: body === undefined ? {} : { 'content-type': 'application/json' },
                body: body === undefined ? undefined : JSON.stringify(body),
              })
              return res.json()
            },
            { method, path, body },
          )
        // Each distinct request refused once, no Retry-After: the backoff decides the wait.
        const limited = () =>
          control('PUT', '/__sandbox/scenarios', {
            active: [{ name: 'rate-limited', options: { failures: 1, retryAfter: null } }],
          })
        try {
          await expect.poll(() => page.locator('#notifications li').count()).toBe(3)
          await limited()
          await control('DELETE', '/__sandbox/requests')
          await page.reload()
          await expect.poll(() => page.locator('#notifications li').count(), { timeout: 15_000 }).toBe(3)
          const kept = await control('GET', '/__sandbox/conduct')
          expect(kept.findings).toEqual([])
          const list = kept.coverage.find((c: { operationId: string }) => c.operationId === 'listNotifications')
          expect(list.met.map((m: { status: number }) => m.status)).toEqual([200, 429])

          await limited()
          await control('DELETE', '/__sandbox/requests')
          await page.goto(new URL('/?careless', vite.resolvedUrls!.local[0]).href)
          await expect.poll(() => page.locator('#notifications li').count(), { timeout: 15_000 }).toBe(3)
          const careless = await control('GET', '/__sandbox/conduct')
          expect(careless.findings.map((f: { rule: string; operationId: string }) => [f.rule, f.operationId])).toEqual([
            ['retried-too-soon', 'signInEmail'],
            ['retried-too-soon', 'listNotifications'],
          ])
        } finally {
          await page.context().close()
        }
      })

      it("fleet-sandbox/node joins the suite's own setupServer: both answer, and its resetHandlers() keeps the sandbox", () => {
        writeFileSync(join(app, 'node-suite.mjs'), NODE_SUITE)
        expect(JSON.parse(run(process.execPath, ['node-suite.mjs'], app).trim().split('\n').at(-1)!)).toEqual({
          signIn: 200,
          sky: 'clear',
          afterReset: 200,
          layers: 200,
        })
      })

      // msw 2 takes a second start() in a page as a redundant one, and the sandbox's handlers answer;
      // msw 3 never finishes starting a second client: the page says so instead of waiting for ever.
      it(
        msw === 3
          ? 'a second msw client in the page (the app starts its own worker, then a plain startSandbox()) is an error on the page naming the fix'
          : 'a second start in the page (the app starts its own worker, then a plain startSandbox()) still answers the sandbox',
        async () => {
          writeFileSync(
            join(app, 'clash.html'),
            '<!doctype html><html><body><p>clash</p><script type="module" src="/src/clash.ts"></script></body></html>',
          )
          writeFileSync(join(app, 'src/clash.ts'), CLASH)
          const page = await (await browser.newContext()).newPage()
          try {
            await page.goto(new URL('/clash.html', vite.resolvedUrls!.local[0]).href)
            if (msw === 3) {
              await expect
                .poll(() => page.locator('[data-fleet-sandbox-notice]').textContent(), { timeout: 60_000 })
                .toMatch(
                  /did not start \(.*\): the page starts another msw worker \(setupWorker\(\)\.start\(\)\): pass it to startSandbox\(\{ worker \}\) instead/,
                )
            } else {
              await expect
                .poll(() => page.evaluate(() => (window as unknown as { started?: string }).started))
                .toBe('started')
              expect(await page.evaluate(() => fetch('/__sandbox/health').then((r) => r.json()))).toMatchObject({
                status: 'ok',
              })
              expect(await page.locator('[data-fleet-sandbox-notice]').count()).toBe(0)
            }
          } finally {
            await page.context().close()
          }
        },
      )

      // On msw 2 the other major's script is msw 3's: without msw 3 (Node 20), noMsw3 noted the skip.
      it.skipIf(msw === 2 && !withMsw3)(
        'a worker script of the other major is an error on the page naming the fix',
        async () => {
          const other = msw === 3 ? MSW2 : MSW3
          const script = join(app, 'public/mockServiceWorker.js')
          const good = readFileSync(script)
          cpSync(join(ROOT, other, 'lib/mockServiceWorker.js'), script)
          const page = await open()
          try {
            await expect
              .poll(() => page.locator('[data-fleet-sandbox-notice]').textContent())
              .toMatch(
                new RegExp(
                  `mockServiceWorker\\.js is msw ${msw === 3 ? 2 : 3}\\.[^ ]*'s worker script, but this page runs msw ${msw}: write it again with .npx fleet-sandbox init`,
                ),
              )
          } finally {
            await page.context().close()
            writeFileSync(script, good)
          }
        },
      )
    })
  },
)
