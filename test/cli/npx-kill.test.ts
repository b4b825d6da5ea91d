import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { unbuilt } from '../support/needs.js'

/**
 * `kill <pid of npx fleet-sandbox>`: npm passes the SIGTERM to its `sh -c`, which dies without
 * passing it on. The server must stop all the same, or the next start finds the port in use.
 */
const app = mkdtempSync(join(tmpdir(), 'fleet-sandbox-npx-'))
writeFileSync(join(app, 'package.json'), '{"name":"npx-app","private":true}')
mkdirSync(join(app, 'node_modules/.bin'), { recursive: true })
symlinkSync(resolve('.'), join(app, 'node_modules/fleet-sandbox'))
symlinkSync('../fleet-sandbox/bin/fleet-sandbox.js', join(app, 'node_modules/.bin/fleet-sandbox'))

let npx: ChildProcess | undefined
afterAll(() => {
  // Its own group, so whatever is left of it (the orphaned server, before the fix) goes too.
  if (npx?.pid)
    try {
      process.kill(-npx.pid, 'SIGKILL')
    } catch {}
})

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('npx fleet-sandbox', () => {
  it('stops the server when the npx process gets SIGTERM', async () => {
    npx = spawn('npx', ['--no-install', 'fleet-sandbox', '--port', '0'], {
      cwd: app,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    npx.stdout!.on('data', (d) => (out += d))
    npx.stderr!.on('data', (d) => (out += d))
    await expect
      .poll(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], { timeout: 60_000, interval: 100 })
      .toBeTruthy()
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]
    expect((await fetch(url + '/__sandbox/health')).status).toBe(200)
    const exited = new Promise((r) => npx!.once('exit', r))
    process.kill(npx.pid!, 'SIGTERM') // the npx process alone, not its group
    await exited
    const answers = () =>
      fetch(url + '/__sandbox/health').then(
        () => true,
        () => false,
      )
    await expect.poll(answers, { timeout: 20_000, interval: 200 }).toBe(false)
  }, 90_000)
})
