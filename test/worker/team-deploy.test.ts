import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deployDryRun } from '../../scripts/deploy-dry-run.mjs'
import { startDeployment } from '../support/deployment.js'
import { keepAliveClient } from '../support/keep-alive.js'
import { unbuilt } from '../support/needs.js'

/**
 * The team deploy of examples/cloudflare/ as `wrangler deploy` would upload it (dry run: no
 * account), then that very bundle served by workerd as the example's wrangler.jsonc configures
 * it, with 50 sandbox ids at once over kept-alive connections.
 */
describe.skipIf(unbuilt('dist/src/engines/workerd/worker/index.js'))('the team deploy (examples/cloudflare)', () => {
  const out = mkdtempSync(join(tmpdir(), 'fleet-sandbox-deploy-'))
  let mf: Miniflare
  let url: URL
  let built: Awaited<ReturnType<typeof deployDryRun>>
  beforeAll(async () => {
    built = await deployDryRun(out)
    const deployed = await startDeployment(
      built.bundle,
      { SANDBOX_SEED: '1', SANDBOX_SIZE: 'small', SANDBOX_CONTROL_TOKEN: 'team-secret' },
      out,
    )
    mf = deployed.mf
    url = deployed.url
  }, 180_000)
  afterAll(async () => {
    await mf?.dispose()
    rmSync(out, { recursive: true, force: true })
  })

  it('builds with wrangler deploy --dry-run, binding both Durable Object classes', () => {
    expect(built.output).toContain('--dry-run: exiting now')
    expect(built.output).toMatch(/env\.SANDBOX \(SandboxObject\)\s+Durable Object/)
    expect(built.output).toMatch(/env\.SANDBOX_DIRECTORY \(SandboxDirectory\)\s+Durable Object/)
    expect(built.gzipBytes).toBeGreaterThan(0)
  })

  it('serves 50 sandbox ids at once over kept-alive connections: each isolated, no connection error', async () => {
    const client = keepAliveClient({ connections: 8 })
    const token = { 'x-sandbox-control-token': 'team-secret' }
    const ids = Array.from({ length: 50 }, (_, i) => `team-${i}`)
    const dayOf = (i: number) =>
      `2030-01-${String((i % 28) + 1).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00.000Z`
    try {
      await Promise.all(
        ids.map(async (id, i) => {
          const headers = { ...token, 'x-sandbox-id': id, 'content-type': 'application/json' }
          const set = await client.fetch(new URL('/__sandbox/clock', url).href, {
            method: 'POST',
            headers,
            body: JSON.stringify({ set: dayOf(i), freeze: true }),
          })
          expect(set.status).toBe(200)
          await set.arrayBuffer()
          const scenarios = await client.fetch(new URL('/__sandbox/scenarios', url).href, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ active: i % 2 ? ['empty'] : [] }),
          })
          expect(scenarios.status).toBe(200)
          await scenarios.arrayBuffer()
        }),
      )
      const seen = await Promise.all(
        ids.map(
          async (id) =>
            (
              await client.fetch(new URL('/__sandbox/health', url).href, { headers: { ...token, 'x-sandbox-id': id } })
            ).json() as Promise<{ sandbox: string; now: string; scenarios: string[] }>,
        ),
      )
      expect(seen).toEqual(
        ids.map((id, i) => expect.objectContaining({ sandbox: id, now: dayOf(i), scenarios: i % 2 ? ['empty'] : [] })),
      )
      expect(client.errors).toEqual([])
      expect(client.opened).toBeLessThanOrEqual(8)
    } finally {
      await client.close()
    }
  })
})
