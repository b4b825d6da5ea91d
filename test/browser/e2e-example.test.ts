import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { noPactTools } from '../support/needs.js'
import { checkE2ePact } from './support/e2e-pact.js'
import { chromiumAvailable } from './support/chromium.js'
import { ROOT } from './support/page-app.js'

interface JsonReport {
  config: { workers: number }
  stats: { expected: number; unexpected: number; flaky: number; skipped: number }
  suites: Suite[]
}
interface Suite {
  suites?: Suite[]
  specs: { title: string; tests: { results: { status: string; workerIndex: number; parallelIndex: number }[] }[] }[]
}

const specs = (suite: Suite): Suite['specs'] => [...suite.specs, ...(suite.suites ?? []).flatMap(specs)]

describe.skipIf(!chromiumAvailable())('the Playwright example (examples/e2e)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-e2e-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('passes with two parallel workers, each in its own x-sandbox-id world', () => {
    const report = join(dir, 'report.json')
    {
      const run = spawnSync(
        process.execPath,
        [
          'node_modules/@playwright/test/cli.js',
          'test',
          '-c',
          'examples/e2e/playwright.config.ts',
          '--reporter=json',
          '--output',
          join(dir, 'results'),
        ],
        {
          cwd: ROOT,
          encoding: 'utf8',
          // With the pact option: the run's Pact file, checked below.
          env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: report, PACT_DIR: join(dir, 'pacts') },
          timeout: 300_000,
        },
      )
      expect(run.status, `playwright test failed:\n${run.stdout}\n${run.stderr}`).toBe(0)
      const result = JSON.parse(readFileSync(report, 'utf8')) as JsonReport
      expect(result.config.workers).toBe(2)
      expect(result.stats).toMatchObject({ unexpected: 0, flaky: 0, skipped: 0 })
      const all = result.suites.flatMap(specs)
      expect(all.length).toBeGreaterThanOrEqual(8)
      const lanes = new Set(all.flatMap((s) => s.tests.flatMap((t) => t.results.map((r) => r.parallelIndex))))
      expect(lanes).toEqual(new Set([0, 1]))
      // The barrier tests can only pass when both ran at once, in different workers.
      const isolation = all.filter((s) => s.title.includes('sees only its own'))
      expect(isolation.map((s) => s.tests[0].results[0].status)).toEqual(['passed', 'passed'])
      expect(new Set(isolation.map((s) => s.tests[0].results[0].parallelIndex)).size).toBe(2)
      // The example keeps the spec's retry rules (its fixture fails a test whose world has a
      // finding), and its careless variant met exactly the findings it asserts (docs/conduct.md).
      const conduct = all.filter((s) =>
        [
          'reads through a rate limit with the backoff',
          'checks an ambiguous write before sending it again',
          'has exactly the findings of what it did wrong',
        ].includes(s.title),
      )
      expect(conduct.map((s) => s.tests[0].results[0].status)).toEqual(['passed', 'passed', 'passed'])
    }
  })

  // The contract of the run's traffic (both workers' worlds in one file), checked by the Pact tools (Node 22+).
  it.skipIf(noPactTools())(
    'its pact passes the official verifier against a fresh sandbox and the OpenAPI comparator; one changed expectation fails',
    async () => {
      await checkE2ePact(join(dir, 'pacts', 'fleet-web-fleet-backoffice.json'))
    },
  )
})
