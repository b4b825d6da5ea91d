import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN } from '../support/client.js'
import { startCli, urlOf } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'

/**
 * Issue 56 item 1 on the command line: a refused state leaves the world, and so the `--state`
 * file saved on stop, one the next start accepts (alone in its file: workerd started by the
 * command line does not come up beside the runtimes' own in one test process).
 */
describe.skipIf(unbuilt('dist/src/cli/cli.js'))('provider states and --state', () => {
  it.each(['node', 'workerd'])(
    '--engine %s: refused params leave the saved file whole; a restart serves it',
    async (engine) => {
      const dir = mkdtempSync(join(tmpdir(), 'fleet-states-'))
      const file = join(dir, 'state.json')
      try {
        const args = ['--engine', engine, '--size', 'small', '--now', '2026-11-22T12:00:00Z', '--state', file]
        const first = await startCli(['--port', '0', ...args])
        const base = urlOf(first.output())
        const post = (state: string, params: unknown) =>
          fetch(`${base}/__sandbox/pact/states`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ state, params, action: 'setup' }),
          })
        const headers = { authorization: `Bearer ${ADMIN_TOKEN}` }
        const id = (await (await fetch(`${base}/api/notifications?limit=1`, { headers })).json()).data.notifications[0]
          .id
        expect((await post('a notification exists', { id, status: 'bogus' })).status).toBe(400)
        expect((await post('a notification exists', { id, status: 'reviewed' })).status).toBe(200)
        const exited = new Promise((resolve) => first.child.once('exit', resolve))
        first.child.kill('SIGTERM')
        expect(await exited).toBe(0)
        const second = await startCli(['--port', '0', ...args])
        try {
          const res = await fetch(`${urlOf(second.output())}/__sandbox/snapshot`)
          expect(res.status).toBe(200)
          const saved = (await res.json()).notifications.find((n: { id: string }) => n.id === id)
          expect(saved.status).toBe('reviewed')
        } finally {
          second.child.kill('SIGTERM')
          await new Promise((resolve) => second.child.once('exit', resolve))
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
    120_000,
  )
})
