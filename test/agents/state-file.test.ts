import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { freePort, startCli } from '../support/cli.js'
import { unbuilt } from '../support/needs.js'
import { answer, client } from '../support/client.js'
import type { Harness } from '../support/sandbox.js'
import { oauth } from './flow.js'

/** Issue 32 item 1: a world's agent access lives in its state, so `--state` keeps clients and grants across a restart. */
describe.skipIf(unbuilt('dist/src/cli/cli.js'))('agent access across a restart with --state', () => {
  it('a client, its refresh token and its access token still work after the server stopped and started again', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fleet-sandbox-agents-')), 'state.json')
    const start = async () => {
      const port = await freePort()
      const { child } = await startCli([
        '--port',
        String(port),
        '--now',
        '2026-11-22T12:00:00Z',
        '--size',
        'small',
        '--state',
        file,
      ])
      const base = `http://127.0.0.1:${port}`
      const rt = { fetch: (path: string, init?: RequestInit) => fetch(base + path, init) } as Harness
      const stop = () => new Promise<number | null>((resolve) => (child.once('exit', resolve), child.kill('SIGTERM')))
      return { rt, s: client(rt), stop }
    }
    const first = await start()
    const t = await oauth(first.rt, first.s).tokens('operator@fleet.test')
    expect(await first.stop()).toBe(0)

    const second = await start()
    try {
      expect((await second.s.as(t.access_token).get('/api/auth/users/me')).body.data.user.email).toBe(
        'operator@fleet.test',
      )
      const next = await oauth(second.rt, second.s).refresh(t.clientId, t.refresh_token)
      expect(next.status).toBe(200)
      const sessions = await answer(await second.rt.fetch('/__sandbox/agents'))
      expect(sessions.body.sessions).toHaveLength(1)
      expect(sessions.body.sessions[0]).toMatchObject({
        user: { email: 'operator@fleet.test' },
        rotations: 1,
        status: 'active',
      })
    } finally {
      await second.stop()
    }
  })
})
