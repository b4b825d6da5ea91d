import { type ChildProcess, spawn } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { unbuilt } from '../support/needs.js'

/** The built command line, as a user runs it: flags, start-up refusals, --state and --fixtures. */
const BIN = 'bin/fleet-sandbox.js'
const ADMIN = { authorization: 'Bearer atk_sandbox_admin' }
const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-cli-'))
const children: ChildProcess[] = []
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
})

/** Runs to its end: exit code and both streams. */
function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (err += d))
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })))
}

/** Starts a server on a free port and polls the URL the moment the process exists: returns the first answer too. */
function start(args: string[], firstPath = '/__sandbox/health') {
  const child = spawn(process.execPath, [BIN, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const ready = new Promise<{ url: string; first: unknown }>((resolve, reject) => {
    const timer = setInterval(async () => {
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (!m) return
      clearInterval(timer)
      resolve({ url: m[1], first: await (await fetch(m[1] + firstPath, { headers: ADMIN })).json() })
    }, 10)
    child.once('exit', (code) => {
      clearInterval(timer)
      reject(new Error(`exited ${code}: ${out}`))
    })
  })
  const stop = () =>
    new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code))
      child.kill('SIGTERM')
    })
  return { child, ready, stop, output: () => out }
}

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('the command line as a user meets it (built)', () => {
  it('prints the version of package.json', async () => {
    const { code, out } = await run(['--version'])
    expect(code).toBe(0)
    expect(out.trim()).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version)
  })

  it('-h prints the help', async () => {
    const { code, out } = await run(['-h'])
    expect(code).toBe(0)
    expect(out).toContain('-p, --port')
  })

  it('an unknown flag exits 1 naming the flag it may have meant', async () => {
    const { code, err } = await run(['--prot', '5000'])
    expect(code).toBe(1)
    expect(err.trim()).toBe('unknown flag --prot; did you mean --port?\n(fleet-sandbox --help lists every flag)')
  })

  it('a port in use exits 1 naming the port and suggesting --port 0', async () => {
    const busy: Server = createServer()
    const port = await new Promise<number>((resolve) =>
      busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)),
    )
    try {
      const { code, err } = await run(['-p', String(port), '--size', 'small'])
      expect(code).toBe(1)
      expect(err).toContain(`--port ${port}: the port is in use on 127.0.0.1`)
      expect(err).toContain('--port 0')
      expect(err).not.toMatch(/\n\s+at /)
    } finally {
      busy.close()
    }
  })

  it('a missing --fixtures folder is a clear message, not ENOENT', async () => {
    const { code, err } = await run(['--fixtures', join(dir, 'nope'), '--port', '0'])
    expect(code).toBe(1)
    expect(err.trim()).toBe(
      `--fixtures ${join(dir, 'nope')}: no such folder (${join(dir, 'nope')}); the packaged examples are --fixtures examples`,
    )
  })

  it('a fixture file that breaks its collection names the file, the record and the rule', async () => {
    const bad = join(dir, 'bad-fixtures')
    mkdirSync(bad)
    writeFileSync(join(bad, 'layers.json'), JSON.stringify([{ id: 'x' }]))
    const { code, err } = await run(['--fixtures', bad, '--port', '0'])
    expect(code).toBe(1)
    expect(err).toContain(`--fixtures ${join(bad, 'layers.json')}: layers.0.`)
    writeFileSync(join(bad, 'layers.json'), '[')
    expect((await run(['--fixtures', bad, '--port', '0'])).err).toContain('must be a JSON array of layers records')
  })

  it('a fixture file linked out of its folder is refused naming it, and nothing of what it points at is shown', async () => {
    const linked = join(dir, 'linked-fixtures')
    mkdirSync(linked)
    const secret = join(dir, 'secret.txt')
    writeFileSync(secret, 'SECRET-CONTENT-43 not json')
    symlinkSync(secret, join(linked, 'layers.json'))
    const { code, err } = await run(['--fixtures', linked, '--port', '0'])
    expect(code).toBe(1)
    expect(err).toContain(
      `--fixtures ${join(linked, 'layers.json')}: must be a file in the folder (a link may point only inside it)`,
    )
    expect(err).not.toContain('SECRET')
    // Not valid JSON inside the folder: where it broke, never what it read.
    rmSync(join(linked, 'layers.json'))
    writeFileSync(join(linked, 'layers.json'), 'SECRET-CONTENT-43')
    const broken = await run(['--fixtures', linked, '--port', '0'])
    expect(broken.err).toContain('must be a JSON array of layers records (not valid JSON')
    expect(broken.err).not.toContain('SECRET')
  })

  it("the banner gives both clients' notification counts, as --help says", async () => {
    const s = start(['--size', 'medium'])
    await s.ready
    expect(s.output()).toContain('notifications: 2,000 for Acme Logistics, 2,000 for Other Freight SpA')
    await s.stop()
  })

  describe('--state', () => {
    it('refuses at start a file whose folder does not exist or cannot be written, naming --state and the file', async () => {
      const missing = join(dir, 'no-folder', 'state.json')
      const r = await run(['--state', missing, '--port', '0'])
      expect(r.code).toBe(1)
      expect(r.err).toContain(`--state ${missing}: its folder`)
      expect(r.out).not.toContain('listening')
      // Root may write anywhere: a file in place of the folder stands for an unwritable one.
      const blocked = join(dir, 'a-file')
      writeFileSync(blocked, '')
      const r2 = await run(['--state', join(blocked, 'state.json'), '--port', '0'])
      expect(r2.code).toBe(1)
      expect(r2.err).toContain(`--state ${join(blocked, 'state.json')}:`)
      // A folder that exists and takes no new file, even for root.
      const r3 = await run(['--state', '/proc/state.json', '--port', '0'])
      expect(r3.code).toBe(1)
      expect(r3.err).toContain('--state /proc/state.json: its folder /proc cannot be written')
      if (process.getuid?.() !== 0) {
        const ro = join(dir, 'read-only')
        mkdirSync(ro)
        chmodSync(ro, 0o500)
        const r4 = await run(['--state', join(ro, 'state.json'), '--port', '0'])
        expect(r4.err).toContain('cannot be written')
      }
    })

    it('refuses a corrupt file with a message that says what is wrong, not a stack trace', async () => {
      const cut = join(dir, 'cut.json')
      writeFileSync(cut, '{"version":1,"seed":1,"clo')
      const r = await run(['--state', cut, '--port', '0'])
      expect(r.code).toBe(1)
      expect(r.err).toContain(`--state ${cut}: it is not a sandbox state: not valid JSON`)
      expect(r.err).toContain('remove it to start from the seed')
      expect(r.err).not.toMatch(/\n\s+at /)
      const wrong = join(dir, 'wrong.json')
      writeFileSync(wrong, JSON.stringify({ version: 1, seed: 'x' }))
      const r2 = await run(['--state', wrong, '--port', '0'])
      expect(r2.code).toBe(1)
      expect(r2.err).toContain(`--state ${wrong}: it is not a sandbox state: `)
      expect(r2.err).toContain('seed: must be a number')
      expect(readFileSync(cut, 'utf8')).toBe('{"version":1,"seed":1,"clo')
      const deep = join(dir, 'deep.json')
      writeFileSync(deep, `{"version":1,"journal":[{"x":${'['.repeat(5000)}${']'.repeat(5000)}}]}`)
      const r3 = await run(['--state', deep, '--port', '0'])
      expect(r3.code).toBe(1)
      expect(r3.err).toContain(
        `--state ${deep}: it is not a sandbox state: it nests deeper than 100 levels of lists and objects`,
      )
    })

    it('prints "saved to FILE" and "restored from FILE", and the first answer already has the restored state', async () => {
      const file = join(dir, 'state.json')
      const first = start(['--size', 'small', '--state', file])
      const { url } = await first.ready
      await fetch(`${url}/__sandbox/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ set: '2031-05-01T00:00:00Z' }),
      })
      await fetch(`${url}/__sandbox/scenarios`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ active: ['empty'] }),
      })
      expect(await first.stop()).toBe(0)
      expect(first.output()).toContain(`saved to ${file}`)
      expect(first.output()).not.toContain('restored from')
      expect(readdirTemp(dir)).toEqual([])

      const second = start(['--size', 'small', '--state', file])
      const { first: health } = await second.ready
      expect(second.output()).toContain(`restored from ${file}`)
      expect(health).toMatchObject({ scenarios: ['empty'] })
      expect((health as { now: string }).now.slice(0, 10)).toBe('2031-05-01')
      await second.stop()
    })
  })

  it('removes what a save cut short by kill -9 left (.FILE.PID.tmp of a process gone), and nothing else', async () => {
    const folder = join(dir, 'leftovers')
    mkdirSync(folder)
    const file = join(folder, 'state.json')
    // The id of a process that ran and is gone, as a killed sandbox's is.
    const gone = spawn(process.execPath, ['-e', ''])
    await new Promise((resolve) => gone.once('exit', resolve))
    const stale = `.state.json.${gone.pid}.tmp`
    const kept = [
      `.state.json.${process.pid}.tmp`,
      '.state.json.tmp',
      `.other.json.${gone.pid}.tmp`,
      `state.json.${gone.pid}.tmp`,
      `.state.json.${gone.pid}.tmp.bak`,
      'notes.txt',
    ]
    for (const name of [stale, ...kept]) writeFileSync(join(folder, name), '{"version":1,"se')
    const sandbox = start(['--size', 'small', '--state', file])
    await sandbox.ready
    expect(sandbox.output()).toContain(`removed ${stale}, left by a save that was cut short`)
    expect(readdirSync(folder).sort()).toEqual([...kept].sort())
    expect(await sandbox.stop()).toBe(0)
    expect(readdirSync(folder).sort()).toEqual([...kept, 'state.json'].sort())
  })

  describe('--fixtures', () => {
    const fixtures = join(dir, 'fixtures')
    mkdirSync(fixtures, { recursive: true })
    const layer = {
      id: 'lay_fixture',
      clientId: 'cli_acme',
      name: 'Depot from a fixture',
      kind: 'zone',
      color: '#112233',
      visible: true,
      createdAt: '2026-01-01T00:00:00.000Z',
    }

    it('shape the first answer, every x-sandbox-id world and every reset, with or without a new seed', async () => {
      writeFileSync(join(fixtures, 'layers.json'), JSON.stringify([layer]))
      const s = start(['--size', 'small', '--fixtures', fixtures], '/api/layers')
      const { url, first } = await s.ready
      expect(first).toMatchObject({ data: [{ id: 'lay_fixture' }] })
      const layers = async (headers: Record<string, string> = {}) =>
        (await (await fetch(`${url}/api/layers`, { headers: { ...ADMIN, ...headers } })).json()).data.map(
          (l: { id: string }) => l.id,
        )
      const reset = (body: object, headers: Record<string, string> = {}) =>
        fetch(`${url}/__sandbox/reset`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        })
      expect(await layers({ 'x-sandbox-id': 'worker-1' })).toEqual(['lay_fixture'])
      expect((await reset({})).status).toBe(200)
      expect(await layers()).toEqual(['lay_fixture'])
      expect((await reset({ seed: 42 })).status).toBe(200)
      expect(await layers()).toEqual(['lay_fixture'])
      expect((await reset({ seed: 7 }, { 'x-sandbox-id': 'worker-1' })).status).toBe(200)
      expect(await layers({ 'x-sandbox-id': 'worker-1' })).toEqual(['lay_fixture'])
      await s.stop()
    })
  })
})

function readdirTemp(folder: string): string[] {
  return readdirSync(folder).filter((f) => f.endsWith('.tmp'))
}
