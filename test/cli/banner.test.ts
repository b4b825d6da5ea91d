import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, startCli, urlOf } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'

/** What the command line prints at start, as a script or a person reads it. */
describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('the banner (built)', () => {
  const children: ChildProcess[] = []
  // SIGTERM, the clean stop: a killed workerd engine would leave its workerd process behind.
  afterEach(() =>
    Promise.all(
      children
        .splice(0)
        .filter((c) => c.exitCode === null)
        .map(
          (c) =>
            new Promise((resolve) => {
              c.once('exit', resolve)
              c.kill('SIGTERM')
            }),
        ),
    ),
  )
  const start = async (args: string[], cwd?: string) => {
    const s = await startCli(['--port', '0', '--size', 'small', ...args], cwd)
    children.push(s.child)
    return s
  }

  it('--quiet with --port 0 still prints the URL line, and only that', async () => {
    const { output } = await start(['--quiet'])
    const url = urlOf(output())
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await fetch(`${url}/__sandbox/health`)).status).toBe(200)
    await fetch(`${url}/api/layers`)
    expect(output().trim()).toBe(`fleet-sandbox listening on ${url}`)
  })

  it('--quiet with --engine workerd prints the URL line too', { timeout: 120_000 }, async () => {
    const { output } = await start(['--quiet', '--engine', 'workerd'])
    const url = urlOf(output())
    expect((await fetch(`${url}/__sandbox/health`)).status).toBe(200)
    expect(output()).not.toContain('demo accounts')
  })

  it('--fixtures examples serves the packaged examples, and the banner lists the accounts that exist', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-sandbox-app-'))
    const { output } = await start(['--fixtures', 'examples'], cwd)
    const url = urlOf(output())
    const layers = await (
      await fetch(`${url}/api/layers`, { headers: { authorization: 'Bearer atk_sandbox_admin' } })
    ).json()
    expect(layers.data).toHaveLength(1)
    expect(output()).toContain('demo accounts (password "sandbox"): admin@fleet.test\n')
    expect(output()).toContain('API token: atk_sandbox_admin')
    expect(output()).not.toContain('operator@fleet.test')
  })

  it('fixtures with their own users and passwords: the banner names each with its password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-users-'))
    writeFileSync(
      join(dir, 'users.json'),
      JSON.stringify([
        {
          id: 'u1',
          clientId: 'cli_acme',
          email: 'lead@acme.test',
          name: 'Lead',
          role: 'admin',
          disabled: false,
          password: 'one',
        },
        {
          id: 'u2',
          clientId: 'cli_acme',
          email: 'clerk@acme.test',
          name: 'Clerk',
          role: 'viewer',
          disabled: false,
          password: 'two',
        },
      ]),
    )
    writeFileSync(join(dir, 'apiTokens.json'), '[]')
    const { output } = await start(['--fixtures', dir])
    expect(output()).toContain('demo accounts: lead@acme.test (password "one"), clerk@acme.test (password "two")')
    expect(output()).not.toContain('API token')
    expect(output()).not.toContain('admin@fleet.test')
  })

  it('lists the scenarios loaded from --scenarios, each with its file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-scenarios-'))
    const scenario = (name: string) =>
      `export default { name: '${name}', description: 'a test', advice: 'none', after: () => ({ status: 418, body: null }) }\n`
    writeFileSync(join(dir, 'teapot.mjs'), scenario('teapot'))
    writeFileSync(join(dir, 'kettle.js'), scenario('kettle'))
    const { output } = await start(['--scenarios', dir])
    const line = output()
      .split('\n')
      .find((l) => l.startsWith('  your scenarios'))
    expect(line?.split(': ')).toEqual([
      `  your scenarios (--scenarios ${dir})`,
      expect.stringMatching(
        /^(kettle \(kettle\.js\), teapot \(teapot\.mjs\)|teapot \(teapot\.mjs\), kettle \(kettle\.js\))$/,
      ),
    ])
  })

  it('a --fixtures folder that does not exist says so, naming the flag, where it looked, and the examples', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-sandbox-app-'))
    const { code, err } = await runCli(['--fixtures', 'fixtures/examples', '--port', '0'], cwd)
    expect(code).toBe(1)
    expect(err.trim()).toBe(
      `--fixtures fixtures/examples: no such folder (${resolve(cwd, 'fixtures/examples')}); the packaged examples are --fixtures examples`,
    )
  })
})
