import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort, runCli } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'

const ADMIN = { authorization: 'Bearer atk_sandbox_admin' }
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-crash-'))
  dirs.push(dir)
  return dir
}

/** The built command line with `--state file`, up and listening. */
async function start(engine: 'node' | 'workerd', file: string, extra: string[] = []) {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [
      `${process.cwd()}/bin/fleet-sandbox.js`,
      ...['--engine', engine, '--size', 'small', '--port', String(port), '--state', file, ...extra],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  await expect.poll(() => out, { timeout: 90_000 }).toContain('listening on')
  return { child, base: `http://127.0.0.1:${port}`, output: () => out, exited }
}

/** Deletes the first layer; answers its id. */
async function deleteLayer(base: string): Promise<string> {
  const layers = await (await fetch(`${base}/api/layers`, { headers: ADMIN })).json()
  const id = layers.data[0].id as string
  expect((await fetch(`${base}/api/layers/${id}`, { method: 'DELETE', headers: ADMIN })).status).toBe(200)
  return id
}

const saved = (file: string) => JSON.parse(readFileSync(file, 'utf8'))

describe.each([
  ['node', unbuilt('dist/fleet-sandbox.mjs')],
  ['workerd', unbuilt('dist/worker.mjs', 'dist/fleet-sandbox.mjs')],
] as const)('--state survives a crash (--engine %s)', (engine, skip) => {
  it.skipIf(skip)(
    'a SIGKILL 1.5 s after a write loses nothing: the file was saved as the world changed',
    { timeout: 120_000 },
    async () => {
      const dir = folder()
      const file = join(dir, 'state.json')
      const { child, base, exited } = await start(engine, file)
      const gone = await deleteLayer(base)
      await sleep(1500)
      child.kill('SIGKILL')
      expect(await exited).toBe(null)
      const state = saved(file)
      expect(state.layers.map((l: { id: string }) => l.id)).not.toContain(gone)
      expect(state.journal.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toContain(
        `DELETE /api/layers/${gone}`,
      )
      // Only the file: the temporary one was renamed over it.
      expect(readdirSync(dir)).toEqual(['state.json'])
      // The next start takes it back.
      const again = await start(engine, file)
      const layers = await (await fetch(`${again.base}/api/layers`, { headers: ADMIN })).json()
      expect(layers.data.map((l: { id: string }) => l.id)).not.toContain(gone)
      again.child.kill('SIGTERM')
      expect(await again.exited).toBe(0)
    },
  )

  it.skipIf(skip)(
    'SIGHUP (a closed terminal) saves and stops as SIGTERM does: exit 0',
    { timeout: 120_000 },
    async () => {
      const file = join(folder(), 'state.json')
      const { child, base, output, exited } = await start(engine, file)
      const gone = await deleteLayer(base)
      child.kill('SIGHUP')
      expect(await exited).toBe(0)
      expect(output()).toContain(`saved to ${file}`)
      expect(output()).toContain('fleet-sandbox stopped (SIGHUP)')
      expect(saved(file).layers.map((l: { id: string }) => l.id)).not.toContain(gone)
    },
  )
})

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('--state as the world changes (Node engine)', () => {
  // The handlers are in place before the banner: a SIGTERM sent as soon as it is read found none, now and then.
  it('a SIGTERM sent the moment the banner is read still saves and exits 0', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 4; i++) {
      const file = join(folder(), 'state.json')
      const { child, output, exited } = await start('node', file)
      child.kill('SIGTERM')
      expect(await exited, output()).toBe(0)
      expect(output()).toContain(`saved to ${file}`)
    }
  })

  it('an idle world is not saved again: no save without a change', { timeout: 60_000 }, async () => {
    const file = join(folder(), 'state.json')
    const { child, base, exited } = await start('node', file)
    await deleteLayer(base)
    await expect.poll(() => statSync(file, { throwIfNoEntry: false })?.mtimeMs, { timeout: 5000 }).toBeGreaterThan(0)
    await sleep(1200)
    const at = statSync(file).mtimeMs
    await sleep(1500)
    expect(statSync(file).mtimeMs).toBe(at)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it(
    'says at start that a saved world keeps its own seed when another --seed is given',
    { timeout: 60_000 },
    async () => {
      const file = join(folder(), 'state.json')
      const first = await start('node', file, ['--seed', '7'])
      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
      const second = await start('node', file, ['--seed', '5'])
      expect(second.output()).toContain(
        `--state ${file}: the saved world's seed is 7, not 5: it is kept, and a reset goes back to seed 7`,
      )
      expect(second.output()).toContain('seed 7,')
      second.child.kill('SIGTERM')
      expect(await second.exited).toBe(0)
    },
  )
})

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('a state file refused at start, kept as it is', () => {
  let good: Record<string, unknown>
  const refused = async (name: string, text: string, why: string) => {
    const file = join(folder(), name)
    writeFileSync(file, text)
    const r = await runCli(['--size', 'small', '--port', '0', '--state', file])
    expect(r.code).toBe(1)
    expect(r.err).toContain(`--state ${file}: ${why}`)
    expect(readFileSync(file, 'utf8')).toBe(text)
  }

  it(
    'a truncated, other-version, unknown-field or __proto__ file names the problem and is never overwritten',
    { timeout: 120_000 },
    async () => {
      const file = join(folder(), 'state.json')
      const first = await start('node', file)
      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
      good = saved(file)
      const text = JSON.stringify(good)
      await refused('cut.json', text.slice(0, text.length / 2), 'it is not a sandbox state: not valid JSON')
      await refused(
        'v2.json',
        JSON.stringify({ ...good, version: 2 }),
        'it is not a sandbox state: version: must be one of 1',
      )
      await refused(
        'extra.json',
        JSON.stringify({ ...good, bogus: 1 }),
        'it is not a sandbox state: bogus: unknown field',
      )
      const layers = good.layers as Record<string, unknown>[]
      await refused(
        'row.json',
        JSON.stringify({ ...good, layers: [{ ...layers[0], color2: 'red' }, ...layers.slice(1)] }),
        'it is not a sandbox state: layers.0.color2: unknown field',
      )
      await refused(
        'proto.json',
        text.replace('{', '{"__proto__":{"polluted":true},'),
        'it is not a sandbox state: __proto__: a __proto__ key is never a field',
      )
      await refused(
        'deep-proto.json',
        text.replace('"clock":{', '"clock":{"__proto__":{"x":1},'),
        'it is not a sandbox state: clock.__proto__: a __proto__ key is never a field',
      )
    },
  )
})
