import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { freePort, startCli } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'

const ADMIN = { authorization: 'Bearer atk_sandbox_admin', 'content-type': 'application/json' }

describe.skipIf(unbuilt('dist/src/cli/cli.js'))('--state across a stop', () => {
  // A process manager or a double Ctrl+C repeats the signal while the first one's save runs.
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'a second %s soon after the first still leaves the whole state, saved',
    async (signal) => {
      const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-signals-'))
      const file = join(dir, 'state.json')
      const port = await freePort()
      // The default size: a save long enough for the second signal to land in it.
      const { child, output } = await startCli([
        '--port',
        String(port),
        '--now',
        '2026-11-22T12:00:00Z',
        '--state',
        file,
      ])
      const base = `http://127.0.0.1:${port}`
      const layers = await (await fetch(`${base}/api/layers`, { headers: ADMIN })).json()
      const gone = layers.data[0].id
      expect((await fetch(`${base}/api/layers/${gone}`, { method: 'DELETE', headers: ADMIN })).status).toBe(200)
      const { clock: _, ...before } = await (await fetch(`${base}/__sandbox/snapshot`)).json()
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      child.kill(signal)
      await sleep(10)
      child.kill(signal)
      expect(await exited).toBe(0)
      expect(output()).toContain(`saved to ${file}`)
      expect(readdirSync(dir)).toEqual(['state.json'])
      const { clock, ...state } = JSON.parse(readFileSync(file, 'utf8'))
      expect(Date.parse(clock.now)).toBeGreaterThan(0)
      expect(state).toEqual(before)
      expect(state.layers.map((l: { id: string }) => l.id)).not.toContain(gone)
      expect(state.journal.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
        'GET /api/layers',
        `DELETE /api/layers/${gone}`,
      ])
    },
  )
})
