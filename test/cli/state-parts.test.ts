import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { WORLD_PARTS } from '../../src/core/sandbox/parts.js'
import { runCli, startCli, urlOf } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'
import { expectFilled, expectSameParts, fillEveryPart } from '../support/world-parts.js'

const NOW = '2026-11-22T12:00:00Z'
const ADMIN = { authorization: 'Bearer atk_sandbox_admin', 'content-type': 'application/json' }

/**
 * `--state` across a restart, through the command line (docs/contract.md "One world, every
 * part"): every part of the world kept in the file; and the newcomer's flow, a bug shared as a
 * file after a restart (publish, stop, start on the same file, write again, download the bundle,
 * `fleet-sandbox replay` into a fresh server).
 */
describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('--state across a restart (built)', { timeout: 120_000 }, () => {
  const children: ChildProcess[] = []
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-state-parts-'))
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL')
  })
  const start = async (args: string[]) => {
    const started = await startCli(['--port', '0', '--now', NOW, '--size', 'small', '--quiet', ...args])
    children.push(started.child)
    return { ...started, url: urlOf(started.output()) }
  }
  const stop = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => (child.once('exit', resolve), child.kill('SIGTERM')))
  const snapshot = async (url: string) => (await fetch(`${url}/__sandbox/snapshot`)).json()

  it('keeps every part of the world in the file', async () => {
    const state = join(dir, 'every-part.json')
    const first = await start(['--state', state])
    const fresh = await snapshot(first.url)
    await fillEveryPart(
      async (call, token) => {
        const res = await fetch(first.url + call.path, {
          method: call.method,
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: call.body === undefined ? undefined : JSON.stringify(call.body),
        })
        return { status: res.status, text: await res.text() }
      },
      async () =>
        (
          await fetch(`${first.url}/api/session-auth/sign-in/email`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
          })
        ).headers.get('set-auth-token')!,
    )
    const filled = await snapshot(first.url)
    expectFilled(filled, fresh)
    expect(await stop(first.child)).toBe(0)
    const second = await start(['--state', state])
    expectSameParts(await snapshot(second.url), filled, 'a restart on --state')
    await stop(second.child)
  })

  it('a bug shared as a file after a restart: publish, stop, start again, write, download the bundle, replay it into a fresh server', async () => {
    const state = join(dir, 'newcomer.json')
    const invoices = '/api/v1/billing/invoices'
    const first = await start(['--state', state])
    expect(
      (await fetch(`${first.url}${invoices}/inv_acme_0014/publish`, { method: 'POST', headers: ADMIN })).status,
    ).toBe(200)
    expect(await stop(first.child)).toBe(0)
    const second = await start(['--state', state])
    expect(
      (await fetch(`${second.url}${invoices}/inv_acme_0014/emit-dte`, { method: 'POST', headers: ADMIN, body: '{}' }))
        .status,
    ).toBeLessThan(300)
    const res = await fetch(`${second.url}/__sandbox/repro`)
    const text = await res.text()
    expect(res.status, text).toBe(200)
    const bundle = JSON.parse(text)
    expect(bundle.base.why).toMatch(/resumed from stored state \(--state/)
    expect(bundle.requests.filter((r: { kind: string }) => r.kind === 'request')).toHaveLength(1)
    const file = join(dir, 'repro.json')
    writeFileSync(file, text)
    const fresh = await start([])
    const { code, out, err } = await runCli(['replay', file, '--url', fresh.url])
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(out).toContain(`replayed ${file}: 1 steps, the world matches the bundle's (${bundle.end.digest})`)
    // A running clock: the replayed world's runs on from the bundle's end.
    const carried = WORLD_PARTS.filter((p) => typeof p.bundle === 'string' && p.key !== 'records' && p.key !== 'clock')
    const [mine, theirs] = [await snapshot(second.url), await snapshot(fresh.url)]
    expectSameParts(theirs, mine, 'a bundle made after a restart, replayed by the command line', carried)
    expect(Math.abs(Date.parse(theirs.clock.now) - Date.parse(mine.clock.now))).toBeLessThan(60_000)
    expect(theirs.invoices).toEqual(mine.invoices)
    expect(theirs.dtes).toEqual(mine.dtes)
  })
})
