import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startCli } from '../support/cli.js'
import { describe, expect, it } from 'vitest'
import { parseOptions, usage } from '../../src/cli/cli.js'
import { unbuilt } from '../support/needs.js'

describe('command line options', () => {
  it('has defaults from docs/contract.md', () => {
    const { options } = parseOptions([], {})
    expect(options).toMatchObject({ port: 4010, host: '127.0.0.1', seed: 1, strict: false, scenarios: [], control: {} })
  })

  it('reads environment variables, and flags win over them', () => {
    const env = { PORT: '5000', SANDBOX_SEED: '9', SANDBOX_STRICT: 'true', SANDBOX_SIZE: 'small' }
    expect(parseOptions([], env).options).toMatchObject({ port: 5000, seed: 9, strict: true, size: 'small' })
    expect(parseOptions(['--port', '6000', '--seed=3'], env).options).toMatchObject({ port: 6000, seed: 3 })
    expect(parseOptions(['--sandbox-idle', '60', '--max-sandboxes', '8'], {}).options).toMatchObject({
      sandboxIdleMs: 60_000,
      maxSandboxes: 8,
    })
    expect(parseOptions(['--scenario', 'slow;ms=5,rate-limited'], {}).options.scenarios).toEqual([
      { name: 'slow', options: expect.objectContaining({ ms: 5 }) },
      { name: 'rate-limited', options: expect.objectContaining({ failures: 3 }) },
    ])
  })

  it.each([
    [['--port', 'abc'], '--port: must be an integer'],
    [['--seed=-1'], '--seed: must be an integer'],
    [['--size', 'huge'], '--size: must be small, medium or large'],
    [['--size', 'small', '--notifications', '5'], 'give one or the other'],
    [['--now', 'yesterday'], '--now: must be an ISO 8601'],
    [['--control-token', 't', '--no-control'], 'give one or the other'],
    [['--bogus'], 'unknown flag --bogus'],
    [['--prot', '5'], 'unknown flag --prot; did you mean --port?'],
    [['--seeed=3'], 'unknown flag --seeed; did you mean --seed?'],
    [['--fixture', 'x'], 'unknown flag --fixture; did you mean --fixtures?'],
    [['-x'], 'unknown flag -x'],
    [['--scenario', 'nope'], 'unknown scenario "nope"'],
    [['--sandbox-idle', '0'], '--sandbox-idle: must be an integer'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseOptions(argv, {})).toThrow(message)
  })

  it('takes -p, -h and --version', () => {
    expect(parseOptions(['-p', '5001'], {}).options.port).toBe(5001)
    expect(parseOptions(['-h'], {}).help).toBe(true)
    expect(parseOptions(['--version'], {}).version).toBe(true)
    expect(usage()).toMatch(/-p, --port/)
    expect(usage()).toMatch(/-h, --help/)
    expect(usage()).toContain('--version')
  })

  it('an unknown flag names the flag it may have meant, without the whole help', () => {
    expect(() => parseOptions(['--prot', '5'], {})).toThrow(
      /^unknown flag --prot; did you mean --port\?\n\(fleet-sandbox --help lists every flag\)$/,
    )
  })

  it('help says how many notifications each client gets', () => {
    expect(usage()).toContain('100, 2,000 or 100,000 notifications for the demo client, at most 2,000 for the second')
  })

  it('help lists every flag with its variable', () => {
    for (const flag of [
      '--port',
      '--host',
      '--seed',
      '--now',
      '--scenario',
      '--size',
      '--notifications',
      '--fixtures',
      '--state',
      '--strict',
      '--control-token',
      '--no-control',
      '--quiet',
      '--sandbox-idle',
      '--max-sandboxes',
    ]) {
      expect(usage()).toContain(flag)
    }
    expect(usage()).toContain('SANDBOX_SEED')
  })
})

const start = startCli

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })

describe.skipIf(unbuilt('dist/src/cli/cli.js'))('the fleet-sandbox process (built)', () => {
  it('prints URL, seed, scenarios and demo accounts, serves, and stops cleanly on SIGTERM', async () => {
    const port = await freePort()
    const { child, output } = await start([
      '--port',
      String(port),
      '--seed',
      '5',
      '--now',
      '2026-11-22T12:00:00Z',
      '--size',
      'small',
    ])
    expect(output()).toContain(`http://127.0.0.1:${port}`)
    expect(output()).toContain('seed 5')
    expect(output()).toContain('admin@fleet.test')
    const health = await (await fetch(`http://127.0.0.1:${port}/__sandbox/health`)).json()
    expect(health).toMatchObject({ status: 'ok', seed: 5, scenarios: [] })
    await fetch(`http://127.0.0.1:${port}/api/notifications`)
    // The log line crosses a pipe; on a busy machine it may arrive after the response.
    await expect.poll(output, { timeout: 10_000 }).toMatch(/GET \/api\/notifications 401/)
    expect(await stop(child)).toBe(0)
  })

  it('saves --state on exit and restores it on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-state-'))
    const state = join(dir, 'state.json')
    const port = await freePort()
    const first = await start(['--port', String(port), '--size', 'small', '--state', state])
    const base = `http://127.0.0.1:${port}`
    await fetch(`${base}/__sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ set: '2030-01-01T00:00:00Z', freeze: true }),
    })
    expect(await stop(first.child)).toBe(0)
    expect(JSON.parse(readFileSync(state, 'utf8')).clock.now).toBe('2030-01-01T00:00:00.000Z')
    const second = await start(['--port', String(port), '--size', 'small', '--state', state])
    const clock = await (await fetch(`${base}/__sandbox/clock`)).json()
    expect(clock.now).toBe('2030-01-01T00:00:00.000Z')
    await stop(second.child)
  })

  it('refuses a non-loopback host without a control token', async () => {
    const child = spawn(process.execPath, ['bin/fleet-sandbox.js', '--host', '0.0.0.0', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect(code).toBe(1)
    expect(err).toContain('--control-token')
  })
})
