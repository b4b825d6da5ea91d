import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'

/** Subcommands read their flags as strictly as the main command: `init --help` is help, not a folder. */
describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('fleet-sandbox init (built)', () => {
  it.each([['--help'], ['-h']])('%s prints its usage and writes nothing', async (flag) => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-sandbox-init-'))
    const { code, out } = await runCli(['init', flag], cwd)
    expect(code).toBe(0)
    expect(out).toContain('Usage: fleet-sandbox init <dir>')
    expect(readdirSync(cwd)).toEqual([])
  })

  it('refuses an unknown flag, naming it, and writes nothing', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-sandbox-init-'))
    const { code, err } = await runCli(['init', '--force', 'public'], cwd)
    expect(code).toBe(1)
    expect(err).toMatch(/^fleet-sandbox init: unknown flag --force\nUsage: fleet-sandbox init <dir>/)
    expect(readdirSync(cwd)).toEqual([])
  })

  it('refuses no folder or two, and writes the worker into one', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-sandbox-init-'))
    expect((await runCli(['init'], cwd)).err).toContain('fleet-sandbox init: give one folder, got 0')
    expect((await runCli(['init', 'a', 'b'], cwd)).err).toContain('fleet-sandbox init: give one folder, got 2')
    const { code, out } = await runCli(['init', 'public'], cwd)
    expect(code).toBe(0)
    expect(out).toContain(join(cwd, 'public', 'mockServiceWorker.js'))
    expect(readdirSync(join(cwd, 'public'))).toEqual(['mockServiceWorker.js'])
  })

  it('the main help names the subcommand, and shows the name;option=value scenario syntax', async () => {
    const { out } = await runCli(['--help'])
    expect(out).toContain('fleet-sandbox init <dir>')
    expect(out).toContain("NAME[;OPTION=VALUE...][,NAME...], e.g. 'rate-limited;failures=1,slow;ms=300'")
  })
})
