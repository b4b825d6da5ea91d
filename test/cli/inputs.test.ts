import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import { type Server as NetServer, type Socket, createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'

/** Every command-line failure is a sentence naming the input, within a time bound, exit 1 (issue 56). */
describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('the subcommands refuse what is not theirs in a sentence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-inputs-'))
  const bundle = join(dir, 'bundle.json')
  writeFileSync(bundle, '{}')
  let page: Server
  let other: Server
  let silent: NetServer
  const sockets: Socket[] = []
  const urlOf = (s: Server | NetServer) => `http://127.0.0.1:${(s.address() as { port: number }).port}`
  beforeAll(async () => {
    // A page: 200 HTML to everything. Another API: 200 JSON of its own.
    page = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'))
    other = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'))
    // Takes the connection, never answers.
    silent = createNetServer((socket) => void sockets.push(socket))
    await Promise.all([page, other, silent].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))))
  })
  afterAll(() => {
    sockets.forEach((s) => s.destroy())
    ;[page, other, silent].forEach((s) => s.close())
    rmSync(dir, { recursive: true, force: true })
  })
  const fails = async (args: string[], text: string, env?: NodeJS.ProcessEnv, code = 1) => {
    const began = Date.now()
    const r = await runCli(args, undefined, env)
    expect(r.code, r.err).toBe(code)
    expect(r.err).toContain(text)
    expect(r.err).not.toMatch(/undefined|Cannot read properties|EISDIR|    at /)
    return Date.now() - began
  }

  it('replay --url: a server that is not a sandbox is said, not "undefined steps"', async () => {
    await fails(
      ['replay', bundle, '--url', urlOf(page)],
      `fleet-sandbox replay: ${urlOf(page)}/__sandbox/repro answered 200 with text/html, not a sandbox's JSON: is --url a fleet-sandbox`,
    )
    await fails(
      ['replay', bundle, '--url', urlOf(other)],
      `fleet-sandbox replay: ${urlOf(other)} answered 200 but not as a sandbox's replay`,
    )
  })

  it('replay --url and pact --url: a server that never answers times out within the bound', async () => {
    const env = { SANDBOX_CALL_TIMEOUT_MS: '1000' }
    const took = await fails(
      ['replay', bundle, '--url', urlOf(silent)],
      `fleet-sandbox replay: ${urlOf(silent)}/__sandbox/repro did not answer within 1 s (SANDBOX_CALL_TIMEOUT_MS)`,
      env,
    )
    expect(took).toBeLessThan(15_000)
    const out = join(dir, 'pact')
    const took2 = await fails(
      ['pact', '--url', urlOf(silent), '--out', out],
      `fleet-sandbox pact: ${urlOf(silent)}/__sandbox/contracts/pact did not answer within 1 s`,
      env,
    )
    expect(took2).toBeLessThan(15_000)
    await fails(['pact', '--url', urlOf(page), '--out', out], "answered 200 with text/html, not a sandbox's JSON")
    await fails(['pact', '--url', urlOf(other), '--out', out], 'answered 200 but not with a Pact file')
  })

  it('replay BUNDLE: a device, a folder, a missing file or bad JSON is named, and nothing hangs', async () => {
    const took = await fails(
      ['replay', '/dev/zero', '--url', urlOf(page)],
      'fleet-sandbox replay: /dev/zero: is not a regular file',
    )
    expect(took).toBeLessThan(15_000)
    await fails(['replay', dir, '--url', urlOf(page)], `fleet-sandbox replay: ${dir}: is a folder, not a file`)
    await fails(
      ['replay', join(dir, 'nope.json'), '--url', urlOf(page)],
      `fleet-sandbox replay: ${join(dir, 'nope.json')}: no such file`,
    )
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{"steps": [')
    await fails(['replay', bad, '--url', urlOf(page)], `fleet-sandbox replay: ${bad}: is not a bundle: not valid JSON`)
    // Without --url too: refused before a server starts.
    await fails(['replay', '/dev/zero'], 'fleet-sandbox replay: /dev/zero: is not a regular file')
  })

  it('record --har and --state: a device, a folder or a pipe is named, never read forever', async () => {
    const out = join(dir, 'rec')
    // record's own code for "cannot run" is 2 (docs/cli.md).
    await fails(['record', '--har', '/dev/zero', '--out', out], '--har /dev/zero: is not a regular file', undefined, 2)
    await fails(['record', '--har', dir, '--out', out], `--har ${dir}: is a folder, not a file`, undefined, 2)
    const fifo = join(dir, 'state.fifo')
    execFileSync('mkfifo', [fifo])
    await fails(['--port', '0', '--state', fifo], `--state ${fifo}: it is not a regular file`)
  })
})
