import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, launch } from '../browser/support/chromium.js'
import { ADMIN_TOKEN } from '../support/client.js'
import { runCli, startCli, urlOf } from '../support/cli.js'
import { type FakeUpstream, startUpstream, UPSTREAM_TOKEN } from '../support/upstream.js'
import { expectEach } from '../support/each.js'
import { noChromium } from '../support/needs.js'

const folder = () => mkdtempSync(join(tmpdir(), 'recorded-'))
const read = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'))
const everything = (dir: string) =>
  readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n')

/** Starts `fleet-sandbox --fixtures DIR` and answers a GET of `path` as the demo admin; `stop` ends it. */
async function serve(dir: string) {
  const { child, output } = await startCli(['--fixtures', dir, '--port', '0', '--seed', '1'])
  const url = urlOf(output())
  const call = (method: string, path: string) =>
    fetch(url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  return {
    call,
    stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))),
  }
}

describe('fleet-sandbox record, then --fixtures', () => {
  // Another seed than the sandbox's own: its records are not ones the sandbox would seed.
  let upstream: FakeUpstream
  let conforming: FakeUpstream
  beforeAll(async () => {
    upstream = await startUpstream('planted', 7)
    conforming = await startUpstream('conforming', 7)
  })
  afterAll(async () => {
    await upstream?.close()
    await conforming?.close()
  })

  it('records the upstream through the walk into a fixtures folder the sandbox then serves, statefully', async () => {
    const dir = folder()
    const run = await runCli(['record', '--upstream', upstream.url, '--upstream-token', UPSTREAM_TOKEN, '--out', dir])
    expect(run.err).toBe('')
    expect(run.code).toBe(0)
    const layers = read(dir, 'layers.json')
    const theirs = await (
      await fetch(`${upstream.url}/api/layers`, { headers: { authorization: `Bearer ${UPSTREAM_TOKEN}` } })
    ).json()
    expect(layers.map((l: { id: string }) => l.id)).toEqual(theirs.data.map((l: { id: string }) => l.id))
    expectEach(layers, (l: { clientId: string }) => l.clientId === 'cli_acme')
    const report = read(dir, 'record-report.json')
    // The planted differences: a missing color filled, an extra field left out, refused values dropped.
    expect(report.collections.layers.filled[0]).toEqual({ id: layers[0].id, fields: ['color'] })
    expect(report.collections.vehicleTypes.leftOut).toContain('legacyCode')
    expect(report.collections.notifications.dropped[0].reason).toMatch(/^status: /)
    expect(report.collections.gpsDetails.dropped[0].reason).toMatch(/^id: /)
    expect(existsSync(join(dir, 'notifications.json'))).toBe(false)
    expect(everything(dir)).not.toContain(UPSTREAM_TOKEN)

    const sandbox = await serve(dir)
    try {
      const served = await (await sandbox.call('GET', '/api/layers')).json()
      const ids = (list: { id: string }[]) => list.map((l) => l.id).sort()
      expect(ids(served.data)).toEqual(ids(layers))
      const gone = layers[0].id
      expect((await sandbox.call('DELETE', `/api/layers/${gone}`)).status).toBeLessThan(300)
      const after = await (await sandbox.call('GET', '/api/layers')).json()
      expect(after.data.map((l: { id: string }) => l.id)).not.toContain(gone)
      expect(after.data).toHaveLength(layers.length - 1)
    } finally {
      await sandbox.stop()
    }
  })

  it('keeps e-mails unless --redact-emails', async () => {
    const kept = folder()
    const redacted = folder()
    expect(
      (await runCli(['record', '--upstream', conforming.url, '--upstream-token', UPSTREAM_TOKEN, '--out', kept])).code,
    ).toBe(0)
    expect(
      (
        await runCli([
          'record',
          '--upstream',
          conforming.url,
          '--upstream-token',
          UPSTREAM_TOKEN,
          '--out',
          redacted,
          '--redact-emails',
        ])
      ).code,
    ).toBe(0)
    expect(read(kept, 'technicians.json')[0].email).toMatch(/@/)
    expect(read(kept, 'technicians.json')[0].email).not.toBe('redacted@example.test')
    expectEach(read(redacted, 'technicians.json'), (t: { email: string }) => t.email === 'redacted@example.test')
  })

  it.skipIf(noChromium())('records a HAR that Chromium itself saved against the upstream', async () => {
    const dir = folder()
    const har = join(dir, 'session.har')
    const browser = await launch()
    try {
      const context = await browser.newContext({ recordHar: { path: har, content: 'embed' } })
      const page = await context.newPage()
      await page.goto(conforming.url)
      await page.waitForFunction(() => document.title === 'done')
      await context.close()
    } finally {
      await browser.close()
    }
    const out = join(dir, 'fixtures')
    const run = await runCli(['record', '--har', har, '--out', out])
    expect(run.err).toBe('')
    expect(run.code).toBe(0)
    expect(readdirSync(out).sort()).toEqual(['layers.json', 'record-report.json', 'technicians.json'])
    const theirs = await (
      await fetch(`${conforming.url}/api/v1/technician/list`, {
        headers: { authorization: `Bearer ${UPSTREAM_TOKEN}` },
      })
    ).json()
    expect(read(out, 'technicians.json').map((t: { id: string }) => t.id)).toEqual(
      theirs.data.map((t: { id: string }) => t.id),
    )
    // The HAR held the page's bearer token in its request headers: nothing of it is written.
    expect(everything(out)).not.toContain(UPSTREAM_TOKEN)
    const sandbox = await serve(out)
    try {
      const served = await (await sandbox.call('GET', '/api/v1/technician/list')).json()
      expect(served.data.map((t: { id: string }) => t.id).sort()).toEqual(
        theirs.data.map((t: { id: string }) => t.id).sort(),
      )
    } finally {
      await sandbox.stop()
    }
  })
})
