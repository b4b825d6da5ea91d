import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer } from '../../src/adapters/server/index.js'

interface Interaction {
  description: string
  pending?: boolean
  response: { status: number }
}

/**
 * fleet-sandbox/playwright's `pact` option, run by Playwright's own runner (no browser): its
 * `scenarios` choice decides what becomes of the interaction a sandbox scenario shaped.
 */
describe("the Playwright fixture's pact option", () => {
  let server: Awaited<ReturnType<typeof startServer>>
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-pact-pw-'))
  beforeAll(async () => {
    server = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Runs the two tests with `scenarios` set (or not); answers the run's exit and its Pact's interactions. */
  const run = async (scenarios: string) => {
    const pacts = join(dir, scenarios || 'default')
    // Not spawnSync: the sandbox answers from this process.
    const { status, out } = await new Promise<{ status: number | null; out: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['node_modules/@playwright/test/cli.js', 'test', '-c', 'test/contracts/playwright/playwright.config.ts'],
        {
          env: { ...process.env, FLEET_SANDBOX_URL: server.url, PACT_DIR: pacts, PACT_SCENARIOS: scenarios },
        },
      )
      let out = ''
      child.stdout.on('data', (d) => (out += d))
      child.stderr.on('data', (d) => (out += d))
      child.on('exit', (status) => resolve({ status, out }))
    })
    const files = status === 0 ? readdirSync(pacts).filter((f) => f.endsWith('.json')) : []
    const interactions =
      files.length === 1
        ? (JSON.parse(readFileSync(join(pacts, files[0]), 'utf8')).interactions as Interaction[])
        : undefined
    return { status, out, files, interactions }
  }
  const shape = (list: Interaction[] | undefined) =>
    (list ?? [])
      .map((i) => ({ status: i.response.status, pending: i.pending ?? false }))
      .sort((a, b) => a.status - b.status)

  it('include (the default) keeps the rate-limited interaction as it is', async () => {
    const r = await run('')
    expect(r.status, r.out).toBe(0)
    expect(r.files).toHaveLength(1)
    expect(shape(r.interactions)).toEqual([
      { status: 200, pending: false },
      { status: 429, pending: false },
    ])
  }, 120_000)

  it('pending marks it pending: true (Pact V4), the plain one not', async () => {
    const r = await run('pending')
    expect(r.status, r.out).toBe(0)
    expect(shape(r.interactions)).toEqual([
      { status: 200, pending: false },
      { status: 429, pending: true },
    ])
  }, 120_000)

  it('exclude leaves it out', async () => {
    const r = await run('exclude')
    expect(r.status, r.out).toBe(0)
    expect(shape(r.interactions)).toEqual([{ status: 200, pending: false }])
  }, 120_000)

  it('a value it does not know fails the run, naming the option', async () => {
    const r = await run('sometimes')
    expect(r.status).not.toBe(0)
    expect(r.out).toMatch(/answered 400: .*scenarios.*include.*pending.*exclude/)
  }, 120_000)
})
