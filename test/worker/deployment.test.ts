import type { Miniflare } from 'miniflare'
import { afterAll, describe, expect, it } from 'vitest'
import { startDeployment } from '../support/deployment.js'
import { TEST_WORKER_BUNDLE } from '../support/worker-bundle.js'

/** The Worker configured as examples/cloudflare/wrangler.jsonc does: `vars` and a secret, no command line. */
async function deployment(vars: Record<string, string>) {
  const { mf, url } = await startDeployment(TEST_WORKER_BUNDLE, vars)
  return { mf, fetch: (path: string, init?: RequestInit) => fetch(new URL(path, url), init) }
}

describe('a deployment configured by vars', () => {
  const started: Miniflare[] = []
  afterAll(() => Promise.all(started.map((mf) => mf.dispose())))

  it('answers every request with a 500 naming SANDBOX_CONTROL_TOKEN when the control API would be open', async () => {
    const d = await deployment({ SANDBOX_SIZE: 'small' })
    started.push(d.mf)
    const res = await d.fetch('/api/notifications')
    expect(res.status).toBe(500)
    expect((await res.json()).message).toContain('SANDBOX_CONTROL_TOKEN: a deployed sandbox needs a control token')
  })

  it('serves with the token as a secret: control calls need it, ids by header and cookie', async () => {
    const d = await deployment({ SANDBOX_SIZE: 'small', SANDBOX_SEED: '4', SANDBOX_CONTROL_TOKEN: 'team-secret' })
    started.push(d.mf)
    expect((await d.fetch('/__sandbox/health')).status).toBe(401)
    const token = { 'x-sandbox-control-token': 'team-secret' }
    expect(
      await (await d.fetch('/__sandbox/health', { headers: { ...token, 'x-sandbox-id': 'ci-1' } })).json(),
    ).toMatchObject({ seed: 4, sandbox: 'ci-1' })
    expect(
      await (await d.fetch('/__sandbox/health', { headers: { ...token, cookie: 'sandbox-id=pr-7' } })).json(),
    ).toMatchObject({ sandbox: 'pr-7' })
    const listed = await (await d.fetch('/__sandbox/sandboxes', { headers: token })).json()
    expect(listed.sandboxes.map((s: { id: string }) => s.id).sort()).toEqual(['ci-1', 'pr-7'])
  })
})
