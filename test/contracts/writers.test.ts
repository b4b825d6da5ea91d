import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, client, freshId } from '../support/client.js'
import { runCli } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-pact-'))
  dirs.push(dir)
  return dir
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

const server = runtimes.find((r) => r.name.startsWith('hono'))!

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('fleet-sandbox pact (built)', () => {
  const rt = useSandbox(server)

  it("writes the Pact file and the used OpenAPI of a running sandbox's world", async () => {
    const id = freshId('cli-pact')
    const c = client(rt, { sandbox: id, token: ADMIN_TOKEN })
    expect((await c.get('/api/layers')).status).toBe(200)
    const out = join(tempDir(), 'pacts')
    const {
      code,
      out: said,
      err,
    } = await runCli(['pact', '--url', rt.url!, '--out', out, '--sandbox-id', id, '--consumer', 'web'])
    expect(code, err).toBe(0)
    expect(said).toContain('1 interactions')
    expect(readdirSync(out).sort()).toEqual(['web-fleet-backoffice.json', 'web-fleet-backoffice.openapi.json'])
    const pact = JSON.parse(readFileSync(join(out, 'web-fleet-backoffice.json'), 'utf8'))
    expect(pact.interactions.map((i: { description: string }) => i.description)).toEqual([
      'listLayers, no scenario, status 200',
    ])
    expect(JSON.parse(readFileSync(join(out, 'web-fleet-backoffice.openapi.json'), 'utf8')).openapi).toBe('3.1.0')
    // --scenarios: what a scenario shaped, pending or left out; a bad value named.
    expect((await c.get('/api/layers', { 'x-sandbox-scenario': 'rate-limited' })).status).toBe(429)
    const pending = await runCli(['pact', '--url', rt.url!, '--out', out, '--sandbox-id', id, '--scenarios', 'pending'])
    expect(pending.code, pending.err).toBe(0)
    const marked = JSON.parse(readFileSync(join(out, 'fleet-web-fleet-backoffice.json'), 'utf8'))
    expect(marked.interactions.map((i: { pending: boolean }) => i.pending)).toEqual([false, true])
    const bad = await runCli(['pact', '--url', rt.url!, '--out', out, '--sandbox-id', id, '--scenarios', 'maybe'])
    expect(bad.code).toBe(1)
    expect(bad.err).toMatch(
      /400 from \/__sandbox\/contracts\/pact: scenarios: must be one of "include", "pending", "exclude"/,
    )
  })

  it('says what is wrong: no flags, a bad URL, a world with no traffic, a bad name', async () => {
    const out = join(tempDir(), 'none')
    expect((await runCli(['pact', '--out', out])).err).toMatch(
      /^fleet-sandbox pact: give --url URL\nUsage: fleet-sandbox pact/,
    )
    expect((await runCli(['pact', '--url', 'nope', '--out', out])).err).toMatch(/--url: must be a URL/)
    expect((await runCli(['pact', '--url', rt.url!, '--out', out, '--force'])).err).toMatch(
      /fleet-sandbox pact: Unknown option '--force'/,
    )
    const empty = await runCli(['pact', '--url', rt.url!, '--out', out, '--sandbox-id', freshId('empty')])
    expect(empty.code).toBe(1)
    expect(empty.err).toMatch(
      /409 from \/__sandbox\/contracts\/pact: journal: this world's journal holds no API answer/,
    )
    expect((await runCli(['pact', '--url', rt.url!, '--out', out, '--consumer', 'a b'])).err).toMatch(
      /400 .*consumer: must be 1 to 64 letters/,
    )
    expect(existsSync(out)).toBe(false)
    expect((await runCli(['pact', '--help'])).out).toContain('Usage: fleet-sandbox pact --url URL --out DIR')
  })
})

describe('setupSandboxServer({ pact: { dir } })', () => {
  it('writes the file of every world the suite used on close, taken before each reset; two suites merge into one file', async () => {
    const { setupSandboxServer } = await import('../../src/adapters/node/index.js')
    const dir = tempDir()
    for (const path of ['/api/layers', '/api/vehicle-types']) {
      const sandbox = setupSandboxServer({ origins: ['http://api.test'], pact: { dir } })
      await sandbox.listen()
      try {
        const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
        expect((await fetch(`http://api.test${path}`, { headers: auth })).status).toBe(200)
        // An isolated world, then a reset (which clears the journals): both kept.
        expect(
          (await fetch('http://api.test/api/notifications?limit=1', { headers: { ...auth, 'x-sandbox-id': 'w1' } }))
            .status,
        ).toBe(200)
        await sandbox.reset()
        expect((await fetch('http://api.test/api/auth/users/me', { headers: auth })).status).toBe(200)
      } finally {
        sandbox.close()
      }
    }
    const pact = JSON.parse(readFileSync(join(dir, 'fleet-web-fleet-backoffice.json'), 'utf8'))
    expect(pact.metadata.pactSpecification.version).toBe('4.0')
    expect(pact.interactions.map((i: { description: string }) => i.description).sort()).toEqual([
      'getMe, no scenario, status 200',
      'listLayers, no scenario, status 200',
      'listNotifications, no scenario, status 200',
      'listVehicleTypes, no scenario, status 200',
    ])
    expect(JSON.stringify(pact)).not.toContain(ADMIN_TOKEN)
  })

  it('scenarios: "pending" marks the interactions a scenario shaped, "exclude" leaves them out; a bad value is refused', async () => {
    const { setupSandboxServer } = await import('../../src/adapters/node/index.js')
    expect(() =>
      setupSandboxServer({ origins: ['http://api.test'], pact: { dir: tempDir(), scenarios: 'all' as never } }),
    ).toThrow(/pact\.scenarios: must be one of "include", "pending", "exclude"/)
    const written = async (scenarios: 'pending' | 'exclude') => {
      const dir = tempDir()
      const sandbox = setupSandboxServer({ origins: ['http://api.test'], pact: { dir, scenarios } })
      await sandbox.listen()
      try {
        const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
        expect((await fetch('http://api.test/api/layers', { headers: auth })).status).toBe(200)
        const limited = await fetch('http://api.test/api/layers', {
          headers: { ...auth, 'x-sandbox-scenario': 'rate-limited' },
        })
        expect(limited.status).toBe(429)
      } finally {
        sandbox.close()
      }
      return JSON.parse(readFileSync(join(dir, 'fleet-web-fleet-backoffice.json'), 'utf8'))
    }
    const pending = await written('pending')
    expect(
      pending.interactions.map((i: { description: string; pending: boolean }) => [i.description, i.pending]),
    ).toEqual([
      ['listLayers, no scenario, status 200', false],
      ['listLayers, scenario rate-limited, status 429', true],
    ])
    const excluded = await written('exclude')
    expect(excluded.interactions.map((i: { description: string }) => i.description)).toEqual([
      'listLayers, no scenario, status 200',
    ])
  })
})
