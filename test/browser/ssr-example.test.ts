import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../src/adapters/server/index.js'
import { chromiumAvailable } from './support/chromium.js'
import { ROOT } from './support/page-app.js'

interface Suite {
  suites?: Suite[]
  specs: { title: string; tests: { results: { status: string; parallelIndex: number }[] }[] }[]
}
const specs = (suite: Suite): Suite['specs'] => [...suite.specs, ...(suite.suites ?? []).flatMap(specs)]

const APP = join(ROOT, 'examples/ssr-react-router')
const installed = existsSync(join(APP, 'node_modules/@react-router/dev/bin.js'))

/**
 * Server-rendered pages in the test's world (docs/contract.md "The app's side"): a React Router
 * (framework mode) app, built and served by its production server, calls the sandbox from its
 * loaders and actions with fleet-sandbox/ssr; Playwright runs two workers at once with
 * fleet-sandbox/playwright, each writing through the page and reading back only its own writes.
 */
describe.skipIf(!chromiumAvailable() || !installed)(
  'a server-rendered app (examples/ssr-react-router) under two Playwright workers',
  () => {
    const build = join('.tmp', `build-${process.pid}`)
    let sandbox: RunningServer
    let app: ChildProcess
    let appUrl: string

    beforeAll(async () => {
      const built = spawnSync(process.execPath, ['node_modules/@react-router/dev/bin.js', 'build'], {
        cwd: APP,
        encoding: 'utf8',
        env: { ...process.env, SSR_BUILD_DIRECTORY: build },
        timeout: 300_000,
      })
      expect(built.status, `react-router build failed:\n${built.stdout}\n${built.stderr}`).toBe(0)
      sandbox = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1' })
      app = spawn(process.execPath, ['server.mjs'], {
        cwd: APP,
        env: { ...process.env, SSR_BUILD_DIRECTORY: build, SANDBOX_URL: sandbox.url, PORT: '0', HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      appUrl = await new Promise<string>((resolve, reject) => {
        let out = ''
        app.stdout!.on('data', (chunk: Buffer) => {
          out += chunk
          const m = /app listening on (http:\/\/\S+)/.exec(out)
          if (m) resolve(m[1])
        })
        app.stderr!.on('data', (chunk: Buffer) => (out += chunk))
        app.on('exit', (code) => reject(new Error(`the app's server exited (${code}):\n${out}`)))
      })
    }, 600_000)

    afterAll(async () => {
      app?.kill('SIGTERM')
      await sandbox?.close()
      rmSync(join(APP, build), { recursive: true, force: true })
    })

    it('renders each test its own world, from the header and from the cookie alone', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-ssr-'))
      const report = join(dir, 'report.json')
      try {
        // Not spawnSync: the sandbox answers from this process, whose event loop must keep running.
        const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(
            process.execPath,
            [
              'node_modules/@playwright/test/cli.js',
              'test',
              '-c',
              'examples/ssr-react-router/playwright.config.ts',
              '--reporter=json',
              '--output',
              join(dir, 'results'),
            ],
            {
              cwd: ROOT,
              env: {
                ...process.env,
                PLAYWRIGHT_JSON_OUTPUT_NAME: report,
                APP_URL: appUrl,
                FLEET_SANDBOX_URL: sandbox.url,
              },
            },
          )
          let stdout = ''
          let stderr = ''
          child.stdout.on('data', (chunk: Buffer) => (stdout += chunk))
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
          child.on('close', (status) => resolve({ status, stdout, stderr }))
        })
        expect(run.status, `playwright test failed:\n${run.stdout}\n${run.stderr}`).toBe(0)
        const result = JSON.parse(readFileSync(report, 'utf8')) as {
          config: { workers: number }
          stats: Record<string, number>
          suites: Suite[]
        }
        expect(result.config.workers).toBe(2)
        expect(result.stats).toMatchObject({ expected: 3, unexpected: 0, flaky: 0, skipped: 0 })
        // The barrier tests pass only when both ran at once, in different workers.
        const isolation = result.suites.flatMap(specs).filter((s) => s.title.includes('sees only its own write'))
        expect(isolation.map((s) => s.tests[0].results[0].status)).toEqual(['passed', 'passed'])
        expect(new Set(isolation.map((s) => s.tests[0].results[0].parallelIndex)).size).toBe(2)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }, 300_000)
  },
)
