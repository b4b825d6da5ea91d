import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, startCli, urlOf } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'

const NOW = '2026-11-22T12:00:00Z'
const ADMIN = { authorization: 'Bearer atk_sandbox_admin', 'content-type': 'application/json' }
const get = async (url: string) => (await fetch(url)).json()

/** A bundle made on one Node server, replayed by the command line: into a running one (--url), and by starting one, on each engine. */
describe.skipIf(unbuilt('dist/fleet-sandbox.mjs', 'dist/worker.mjs'))(
  'fleet-sandbox replay (built)',
  { timeout: 120_000 },
  () => {
    const children: ChildProcess[] = []
    const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-replay-'))
    const file = join(dir, 'repro.json')
    let bundle: { requests: unknown[]; end: { parts: Record<string, string>; digest: string; now: string } }

    const start = async (args: string[]) => {
      const started = await startCli(args)
      children.push(started.child)
      return started
    }

    beforeAll(async () => {
      const { output } = await start(['--port', '0', '--seed', '7', '--now', NOW, '--quiet'])
      const url = urlOf(output())
      const invoices = '/api/v1/billing/invoices'
      expect((await fetch(`${url}${invoices}/inv_acme_0014/publish`, { method: 'POST', headers: ADMIN })).status).toBe(
        200,
      )
      expect(
        (
          await fetch(`${url}/__sandbox/clock`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ advanceBy: '1d' }),
          })
        ).status,
      ).toBe(200)
      expect(
        (await fetch(`${url}${invoices}/inv_acme_0014/emit-dte`, { method: 'POST', headers: ADMIN, body: '{}' }))
          .status,
      ).toBeLessThan(300)
      const res = await fetch(`${url}/__sandbox/repro`)
      expect(res.status).toBe(200)
      writeFileSync(file, await res.text())
      bundle = JSON.parse(readFileSync(file, 'utf8'))
    })

    afterAll(() => {
      for (const c of children) c.kill('SIGTERM')
    })

    it('--url: rebuilds the world in a running sandbox, which then makes the same bundle', async () => {
      const { output } = await start(['--port', '0', '--seed', '1', '--quiet'])
      const url = urlOf(output())
      const { code, out, err } = await runCli(['replay', file, '--url', url])
      expect(err).toBe('')
      expect(code).toBe(0)
      expect(out).toMatch(
        `replayed ${file}: ${bundle.requests.length} steps, the world matches the bundle's (${bundle.end.digest}) at ${url}, clock 2026-11-23T`,
      )
      expect((await get(`${url}/__sandbox/repro`)).end.parts).toEqual(bundle.end.parts)
      expect((await get(`${url}/__sandbox/health`)).seed).toBe(7)
    })

    it.each(['node', 'workerd'])('started with --engine %s: serves the rebuilt world', async (engine) => {
      const { output } = await start(['replay', file, '--port', '0', '--engine', engine])
      const url = urlOf(output())
      // The replay is sent once the server listens; its line follows the banner.
      for (let i = 0; i < 500 && !output().includes('replayed '); i++) await new Promise((r) => setTimeout(r, 20))
      expect(output()).toContain(
        `replayed ${file}: ${bundle.requests.length} steps, the world matches the bundle's (${bundle.end.digest})`,
      )
      // The banner shows the bundle's seed and clock (a day after NOW), not the real clock it would leave at once.
      expect(output()).toMatch(/\n  seed 7, clock 2026-11-23T12:0/)
      expect((await get(`${url}/__sandbox/repro`)).end.parts).toEqual(bundle.end.parts)
    })

    it('a tampered bundle is refused naming why, exit 1, and the sandbox stays as it was', async () => {
      const { output } = await start(['--port', '0', '--quiet'])
      const url = urlOf(output())
      const before = (await get(`${url}/__sandbox/repro`)).end.parts
      const tampered = join(dir, 'tampered.json')
      writeFileSync(tampered, readFileSync(file, 'utf8').replace('"seed":7', '"seed":8'))
      const { code, err } = await runCli(['replay', tampered, '--url', url])
      expect(code).toBe(1)
      expect(err).toMatch(
        /^fleet-sandbox replay: .*tampered\.json was refused \(400\): checksum: does not match the bundle's content/,
      )
      expect((await get(`${url}/__sandbox/repro`)).end.parts).toEqual(before)
    })

    it('bad arguments: no file, a missing file, an unknown flag with --url', async () => {
      expect((await runCli(['replay'])).err).toMatch(
        /^fleet-sandbox replay: give the bundle file\nUsage: fleet-sandbox replay BUNDLE/,
      )
      expect((await runCli(['replay', join(dir, 'nope.json'), '--url', 'http://127.0.0.1:1'])).err).toMatch(
        /^fleet-sandbox replay: .*nope\.json: no such file/,
      )
      expect((await runCli(['replay', file, '--url', 'http://127.0.0.1:1', '--port', '3'])).err).toMatch(
        /^fleet-sandbox replay: unknown flag --port \(with --url, only --control-token and --sandbox-id\)/,
      )
      const help = await runCli(['replay', '--help'])
      expect(help.code).toBe(0)
      expect(help.out).toContain('Usage: fleet-sandbox replay BUNDLE [server flags]')
    })
  },
)
