import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { urlOf } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), resolve(false)))
    socket.once('error', () => resolve(true))
  })

/** `npm start` as a process manager or a terminal stops it: npm's shell sits between npm and the server. */
describe.skipIf(unbuilt('dist/fleet-sandbox.mjs'))('npm start (built)', () => {
  // A process manager sends SIGTERM to npm alone; a terminal's Ctrl-C sends SIGINT to the whole group.
  // npm start builds first when the sources changed: minutes on a busy machine.
  it.each([
    ['SIGTERM to npm', 'SIGTERM', false],
    ['Ctrl-C (SIGINT to the group)', 'SIGINT', true],
  ] as const)('%s stops the server: the port closes', { timeout: 300_000 }, async (_, signal, group) => {
    // A group of its own, so the test can end every process of it whatever happens.
    const npm = spawn('npm', ['start', '--silent', '--', '--port', '0', '--size', 'small'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let out = ''
    npm.stdout!.on('data', (d) => (out += d))
    npm.stderr!.on('data', (d) => (out += d))
    try {
      await expect.poll(() => out, { timeout: 240_000 }).toContain('API token')
      const port = Number(new URL(urlOf(out)).port)
      expect(await refused(port)).toBe(false)
      if (group) process.kill(-npm.pid!, signal)
      else npm.kill(signal)
      await expect.poll(() => refused(port), { timeout: 20_000 }).toBe(true)
      // The server's own clean stop ran (the one that saves --state), not a kill.
      await expect.poll(() => out, { timeout: 20_000 }).toContain('fleet-sandbox stopped (SIG')
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  })
})
