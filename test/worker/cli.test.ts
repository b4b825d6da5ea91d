import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { freePort, runCli, startCli } from '../support/cli.js'
import { describe, expect, it } from 'vitest'
import { parseOptions } from '../../src/cli/cli.js'
import { unbuilt } from '../support/needs.js'

const start = (args: string[]) => startCli(['--engine', 'workerd', ...args])

const stop = (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill(signal)
  })

/** The workerd child of a process (miniflare spawns it). */
function workerdOf(pid: number): number | undefined {
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)) {
      if (readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('workerd')) return Number(child)
    }
  }
  return undefined
}

/** Running, and not a zombie waiting for its parent. */
function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return false
  }
}

describe('--engine', () => {
  it('is node by default, workerd on request (flag or SANDBOX_ENGINE), nothing else', () => {
    expect(parseOptions([], {}).options.engine).toBe('node')
    expect(parseOptions([], { SANDBOX_ENGINE: 'workerd' }).options.engine).toBe('workerd')
    expect(parseOptions(['--engine', 'workerd', '--persist', 'dir'], {}).options).toMatchObject({
      engine: 'workerd',
      persist: 'dir',
    })
    expect(() => parseOptions(['--engine', 'deno'], {})).toThrow('--engine: must be node or workerd, got "deno"')
    expect(() => parseOptions(['--persist', 'dir'], {})).toThrow('--persist: only with --engine workerd')
  })
})

// Each case starts workerd once or more: on a busy 2-core machine that alone can take 10 s.
describe.skipIf(unbuilt('dist/worker.mjs', 'dist/fleet-sandbox.mjs'))(
  'fleet-sandbox --engine workerd (built)',
  { timeout: 120_000 },
  () => {
    it('prints the same banner, serves each id from its object, logs requests, stops cleanly on SIGTERM and SIGINT', async () => {
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
      expect(output()).toContain(`listening on http://127.0.0.1:${port}`)
      expect(output()).toContain('seed 5, clock 2026-11-22T12:00:00')
      expect(output()).toContain('admin@fleet.test')
      const health = await (
        await fetch(`http://127.0.0.1:${port}/__sandbox/health`, { headers: { 'x-sandbox-id': 'cli-1' } })
      ).json()
      expect(health).toMatchObject({ status: 'ok', seed: 5, scenarios: [], sandbox: 'cli-1' })
      await fetch(`http://127.0.0.1:${port}/api/notifications`)
      await expect.poll(output, { timeout: 10_000 }).toMatch(/GET \/api\/notifications 401/)
      expect(await stop(child)).toBe(0)
      expect(output()).toContain('fleet-sandbox stopped (SIGTERM)')
      const again = await start(['--port', String(port)])
      expect(await stop(again.child, 'SIGINT')).toBe(0)
    })

    it('keeps sandboxes in --persist across restarts, and --state as the Node engine does', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-cli-workerd-'))
      try {
        const port = await freePort()
        const args = [
          '--port',
          String(port),
          '--size',
          'small',
          '--persist',
          join(dir, 'objects'),
          '--state',
          join(dir, 'state.json'),
        ]
        const first = await start(args)
        const base = `http://127.0.0.1:${port}`
        const set = (id: string, at: string) =>
          fetch(`${base}/__sandbox/clock`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-sandbox-id': id },
            body: JSON.stringify({ set: at, freeze: true }),
          })
        expect((await set('default', '2030-01-01T00:00:00Z')).status).toBe(200)
        expect((await set('kept', '2031-01-01T00:00:00Z')).status).toBe(200)
        expect(await stop(first.child)).toBe(0)
        expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).clock.now).toBe('2030-01-01T00:00:00.000Z')
        const second = await start(args)
        expect((await (await fetch(`${base}/__sandbox/clock`)).json()).now).toBe('2030-01-01T00:00:00.000Z')
        expect(
          (await (await fetch(`${base}/__sandbox/clock`, { headers: { 'x-sandbox-id': 'kept' } })).json()).now,
        ).toBe('2031-01-01T00:00:00.000Z')
        await stop(second.child)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })

    // A terminal's Ctrl-C, a process manager's SIGTERM to the group: workerd runs in a session of its own (src/engines/workerd/front/signals.ts).
    it.each(['SIGINT', 'SIGTERM'] as const)(
      'stops cleanly on %s to the whole process group (Ctrl-C in a terminal): --state written, the last requests in it',
      async (signal) => {
        const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-cli-workerd-'))
        try {
          const port = await freePort()
          const state = join(dir, 'state.json')
          // In a process group of its own, as a shell starts a command in a terminal.
          const child = spawn(
            process.execPath,
            [
              `${process.cwd()}/bin/fleet-sandbox.js`,
              '--engine',
              'workerd',
              '--port',
              String(port),
              '--size',
              'small',
              '--state',
              state,
            ],
            { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
          )
          let out = ''
          child.stdout!.on('data', (d) => (out += d))
          child.stderr!.on('data', (d) => (out += d))
          const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
          await expect.poll(() => out, { timeout: 60_000 }).toContain('listening on')
          const workerd = workerdOf(child.pid!)
          expect(workerd).toBeGreaterThan(0)
          const base = `http://127.0.0.1:${port}`
          expect(
            (
              await fetch(`${base}/__sandbox/clock`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ set: '2030-01-01T00:00:00Z', freeze: true }),
              })
            ).status,
          ).toBe(200)
          // A read's journal entry waits for the object's next batch: a clean stop keeps it.
          expect((await fetch(`${base}/api/notifications?last=1`)).status).toBe(401)
          process.kill(-child.pid!, signal)
          expect(await exited, out).toBe(0)
          expect(out).toContain(`fleet-sandbox stopped (${signal})`)
          const saved = JSON.parse(readFileSync(state, 'utf8'))
          expect(saved.clock.now).toBe('2030-01-01T00:00:00.000Z')
          expect(saved.journal.map((e: { path: string; query: string }) => e.path + e.query)).toContain(
            '/api/notifications?last=1',
          )
          await expect.poll(() => alive(workerd!), { timeout: 10_000 }).toBe(false)
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      },
    )

    it('leaves no workerd behind when the command is killed with SIGKILL', async () => {
      const { child } = await start(['--port', '0', '--size', 'small'])
      const workerd = workerdOf(child.pid!)
      expect(workerd).toBeGreaterThan(0)
      expect(alive(workerd!)).toBe(true)
      expect(await stop(child, 'SIGKILL')).toBe(null)
      await expect.poll(() => alive(workerd!), { timeout: 10_000 }).toBe(false)
    })

    it('prints what the Node engine prints: banner, request log, port in use, --state errors; only the engine line differs', async () => {
      const args = [
        '--port',
        '0',
        '--seed',
        '5',
        '--now',
        '2026-11-22T12:00:00Z',
        '--size',
        'small',
        '--scenario',
        'slow;ms=1',
        '--cors-origin',
        'https://tools.example.com',
      ]
      const said = async (engine: string) => {
        const { child, output } = await startCli(['--engine', engine, ...args])
        const url = /listening on (\S+)/.exec(output())![1]
        await fetch(`${url}/api/notifications?limit=1`)
        await fetch(`${url}/__sandbox/health`, { headers: { 'x-sandbox-id': 'same-1' } })
        await expect.poll(output, { timeout: 10_000 }).toMatch(/GET \/__sandbox\/health 200/)
        await stop(child)
        return output()
          .replaceAll(url, 'URL')
          .replace(/\d{2}:\d{2}:\d{2}\.\d{3}(Z?)/g, 'TIME$1')
          .replace(/ [\d.]+ms/g, ' Nms')
          .split('\n')
          .filter((line) => !line.startsWith('  engine: '))
      }
      const node = await said('node')
      expect(node.join('\n')).toContain('GET /api/notifications?limit=1 401 Nms [slow]')
      expect(await said('workerd')).toEqual(node)

      const blocker = createServer().listen(0, '127.0.0.1')
      await new Promise((resolve) => blocker.once('listening', resolve))
      const port = (blocker.address() as { port: number }).port
      const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-cli-same-'))
      writeFileSync(join(dir, 'state.json'), '{"cut short')
      try {
        for (const [extra, message] of [
          [['--port', String(port)], `--port ${port}: the port is in use on 127.0.0.1`],
          [
            ['--state', join(dir, 'state.json')],
            `--state ${join(dir, 'state.json')}: it is not a sandbox state: not valid JSON`,
          ],
        ] as const) {
          const errors = await Promise.all(
            ['node', 'workerd'].map(async (engine) => {
              const { code, err } = await runCli(['--engine', engine, ...extra])
              return `exit ${code}: ${err}`
            }),
          )
          expect(errors[0]).toContain(message)
          expect(errors[1]).toBe(errors[0])
        }
      } finally {
        blocker.close()
        rmSync(dir, { recursive: true, force: true })
      }
    })

    it('exits 1 naming a port in use', async () => {
      const blocker = createServer().listen(0, '127.0.0.1')
      await new Promise((resolve) => blocker.once('listening', resolve))
      const port = (blocker.address() as { port: number }).port
      const child = spawn(process.execPath, ['bin/fleet-sandbox.js', '--engine', 'workerd', '--port', String(port)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let err = ''
      child.stderr.on('data', (d) => (err += d))
      const code = await new Promise((resolve) => child.once('exit', resolve))
      blocker.close()
      expect(code).toBe(1)
      expect(err).toContain(`--port ${port}: the port is in use`)
    })
  },
)
