import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../src/adapters/server/index.js'

interface Result {
  status: string
  errors: { message?: string }[]
  attachments: { name: string; body?: string; path?: string }[]
  annotations: { type: string; description?: string }[]
}
interface Suite {
  suites?: Suite[]
  specs: { title: string; tests: { annotations: Result['annotations']; results: Result[] }[] }[]
}
const specs = (suite: Suite): Suite['specs'] => [...suite.specs, ...(suite.suites ?? []).flatMap(specs)]

/** fleet-sandbox/playwright's `conduct` option, run by Playwright's own runner (no browser: `request` only). */
describe("the Playwright fixture's conduct option", () => {
  it('fails a careless test with its findings, passes a well-behaved one, warns and attaches the report', async () => {
    const server = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1' })
    const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-conduct-pw-'))
    const report = join(dir, 'report.json')
    try {
      // Not spawnSync: the sandbox answers from this process.
      const run = await new Promise<{ status: number | null; out: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [
            'node_modules/@playwright/test/cli.js',
            'test',
            '-c',
            'test/conduct/playwright/playwright.config.ts',
            '--reporter=json',
            '--output',
            join(dir, 'results'),
          ],
          { env: { ...process.env, FLEET_SANDBOX_URL: server.url, PLAYWRIGHT_JSON_OUTPUT_NAME: report } },
        )
        let out = ''
        child.stdout.on('data', (d) => (out += d))
        child.stderr.on('data', (d) => (out += d))
        child.on('exit', (status) => resolve({ status, out }))
      })
      expect(run.status, run.out).toBe(1)
      const all = (JSON.parse(readFileSync(report, 'utf8')) as { suites: Suite[] }).suites.flatMap(specs)
      const byTitle = Object.fromEntries(all.map((s) => [s.title, s.tests[0]]))
      const careless = byTitle['careless: sends a 404 again']
      expect(careless.results[0].status).toBe('failed')
      expect(careless.results[0].errors[0].message).toMatch(
        /the app broke the spec's retry rules in pw-[\s\S]*retried-refusal \(Retry rules 2\), requests 1, 2/,
      )
      const attached = careless.results[0].attachments.find((a) => a.name === 'conduct.json')!
      const body = JSON.parse(
        attached.body ? Buffer.from(attached.body, 'base64').toString() : readFileSync(attached.path!, 'utf8'),
      )
      expect(body.findings.map((f: { rule: string }) => f.rule)).toEqual(['retried-refusal'])

      const good = byTitle['well-behaved: reads the list after the 404']
      expect(good.results[0].status).toBe('passed')
      expect(good.results[0].attachments.map((a) => a.name)).toEqual(['conduct.json'])

      const warned = byTitle['careless, warned: sends a 404 again']
      expect(warned.results[0].status).toBe('passed')
      expect([...warned.annotations, ...warned.results[0].annotations]).toContainEqual({
        type: 'warning',
        description: expect.stringContaining('retried-refusal'),
      })
      const off = byTitle['careless, not looked at']
      expect(off.results[0].status).toBe('passed')
      expect(off.results[0].attachments).toEqual([])
    } finally {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
