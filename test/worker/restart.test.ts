import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startWorkerd, type RunningWorkerd } from '../../src/engines/workerd/front/launch.js'
import { NOW } from '../support/runtimes.js'
import { TEST_WORKER_BUNDLE } from '../support/worker-bundle.js'
import { WORLD_PARTS } from '../../src/core/sandbox/parts.js'
import { expectFilled, expectSameParts, fillEveryPart } from '../support/world-parts.js'

type Snapshot = Record<string, any>

/**
 * The local runtime stops (miniflare disposed, workerd gone) and starts again on the same
 * storage folder: every acknowledged write of every id is still there.
 */
describe('workerd restart', () => {
  const persist = mkdtempSync(join(tmpdir(), 'fleet-sandbox-restart-'))
  const start = () =>
    startWorkerd({ script: TEST_WORKER_BUNDLE, persist, seed: 1, now: NOW, size: 'small', port: 0, host: '127.0.0.1' })
  let server: RunningWorkerd
  afterAll(async () => {
    await server?.close()
    rmSync(persist, { recursive: true, force: true })
  })

  const send = async (id: string, method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = { 'x-sandbox-id': id }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (token) headers.authorization = `Bearer ${token}`
    const res = await fetch(server.url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, headers: res.headers, body: await res.json() }
  }
  const snapshot = async (id: string): Promise<Snapshot> => (await send(id, 'GET', '/__sandbox/snapshot')).body
  const signIn = async (id: string, email = 'admin@fleet.test') => {
    const res = await fetch(server.url + '/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { 'x-sandbox-id': id, 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'sandbox' }),
    })
    expect(res.status).toBe(200)
    return res.headers.get('set-auth-token')!
  }

  /** Writes of every kind: inserts, updates, a removal, notifications, sessions, outbox, journal, scenarios, clock. */
  async function liveIn(id: string, frozen: boolean) {
    const token = await signIn(id)
    const list = await send(id, 'GET', '/api/notifications?status=unreviewed&limit=1', undefined, token)
    expect(
      (
        await send(
          id,
          'PATCH',
          `/api/notifications/${list.body.data.notifications[0].id}`,
          { status: 'false_positive' },
          token,
        )
      ).status,
    ).toBe(200)
    expect((await send(id, 'POST', '/api/auth/password-reset/request', { email: 'viewer@fleet.test' })).status).toBe(
      200,
    )
    const layers = await send(id, 'GET', '/api/layers', undefined, token)
    expect((await send(id, 'DELETE', `/api/layers/${layers.body.data[0].id}`, undefined, token)).status).toBe(200)
    expect((await send(id, 'POST', '/api/v1/billing/invoices/inv_acme_0014/publish', undefined, token)).status).toBe(
      200,
    )
    expect((await send(id, 'POST', '/api/v1/billing/invoices/inv_acme_0013/emit-dte', undefined, token)).status).toBe(
      200,
    )
    expect((await send(id, 'PUT', '/__sandbox/scenarios', { active: ['thread-closed'] })).status).toBe(200)
    expect((await send(id, 'POST', '/__sandbox/clock', { advanceBy: '3d', freeze: frozen })).status).toBe(200)
    return token
  }

  it('keeps every acknowledged write of two ids, a restored one and the default, and goes on from there', async () => {
    server = await start()
    const alpha = await liveIn('alpha', true)
    const beta = await liveIn('beta', false)
    await liveIn('default', true)
    // A restored snapshot is no seed plus changes: every record is stored.
    const restored: Snapshot = { ...(await snapshot('alpha')), seed: 7 }
    restored.users = restored.users.map((u: { name: string }, i: number) => (i ? u : { ...u, name: 'Restored Name' }))
    expect((await send('gamma', 'PUT', '/__sandbox/snapshot', restored)).status).toBe(200)
    const before = {
      alpha: await snapshot('alpha'),
      beta: await snapshot('beta'),
      gamma: await snapshot('gamma'),
      default: await snapshot('default'),
    }
    const listed = (await send('default', 'GET', '/__sandbox/sandboxes')).body.sandboxes
      .map((s: { id: string }) => s.id)
      .sort()
    expect(listed).toEqual(['alpha', 'beta', 'gamma'])
    const stoppedAt = Date.now()

    await server.close()
    server = await start()

    const after = {
      alpha: await snapshot('alpha'),
      beta: await snapshot('beta'),
      gamma: await snapshot('gamma'),
      default: await snapshot('default'),
    }
    expect(after.alpha).toEqual(before.alpha)
    expect(after.gamma).toEqual(before.gamma)
    expect(after.gamma.seed).toBe(7)
    expect(after.default).toEqual(before.default)
    // A running clock stays relative to real time: it moved on by about the time the runtime was away.
    const { clock: clockBefore, ...restBefore } = before.beta
    const { clock: clockAfter, ...restAfter } = after.beta
    expect(restAfter).toEqual(restBefore)
    const moved = Date.parse(clockAfter.now) - Date.parse(clockBefore.now)
    expect(moved).toBeGreaterThanOrEqual(0)
    expect(moved).toBeLessThanOrEqual(Date.now() - stoppedAt + 5000)
    expect(
      (await send('default', 'GET', '/__sandbox/sandboxes')).body.sandboxes.map((s: { id: string }) => s.id).sort(),
    ).toEqual(['alpha', 'beta', 'gamma'])

    // Sessions still open, and new ids continue where they stopped.
    expect((await send('alpha', 'GET', '/api/auth/users/me', undefined, alpha)).status).toBe(200)
    expect((await send('beta', 'GET', '/api/auth/users/me', undefined, beta)).status).toBe(200)
    const again = await send('beta', 'POST', '/api/v1/billing/invoices/inv_acme_0015/publish', undefined, beta)
    expect(again.status).toBe(200)
    // The seeded generator goes on where it was: a DTE emitted after the restart gets a new TrackID.
    expect(
      (await send('beta', 'POST', '/api/v1/billing/invoices/inv_acme_0015/emit-dte', undefined, beta)).status,
    ).toBe(200)
    const tracks = ((await snapshot('beta')).dtes as { TrackID: string | null }[]).map((d) => d.TrackID).filter(Boolean)
    expect(tracks.length).toBeGreaterThan(before.beta.dtes.filter((d: { TrackID: string | null }) => d.TrackID).length)
    expect(new Set(tracks).size).toBe(tracks.length)
    const invoices = (await snapshot('beta')).invoices as { id: string; number: string | null }[]
    const number = (id: string) => Number(invoices.find((i) => i.id === id)!.number!.replace(/\D/g, ''))
    expect(number('inv_acme_0015')).toBe(number('inv_acme_0014') + 1)
  }, 120_000) // two workerd starts and four worlds: slow on a loaded 2-core machine

  it('drops a sandbox across objects: its storage goes, the id starts fresh', async () => {
    expect((await send('default', 'DELETE', '/__sandbox/sandboxes/alpha')).status).toBe(200)
    expect(
      (await send('default', 'GET', '/__sandbox/sandboxes')).body.sandboxes.map((s: { id: string }) => s.id).sort(),
    ).toEqual(['beta', 'gamma'])
    const fresh = await snapshot('alpha')
    expect(fresh.scenarios).toEqual([])
    expect(fresh.outbox).toEqual([])
    await server.close()
    server = await start()
    expect((await snapshot('alpha')).outbox).toEqual([])
    expect((await snapshot('beta')).outbox.length).toBeGreaterThan(0)
  })

  // Generated from the world's parts (src/core/sandbox/parts.ts; test/world/parts.test.ts): every one filled, every one back.
  it("keeps every part of a world in a Durable Object's storage, and the world's repro bundle rebuilds it after the restart", async () => {
    const id = 'every-part'
    const fresh = await snapshot(id)
    await fillEveryPart(
      async (call, token) => {
        const res = await fetch(server.url + call.path, {
          method: call.method,
          headers: {
            'x-sandbox-id': id,
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: call.body === undefined ? undefined : JSON.stringify(call.body),
        })
        return { status: res.status, text: await res.text() }
      },
      () => signIn(id),
    )
    const filled = await snapshot(id)
    expectFilled(filled, fresh)
    await server.close()
    server = await start()
    expectSameParts(await snapshot(id), filled, 'a restart (a Durable Object woken from its storage)')
    // A bundle is always there: the woken world's begins at a base, and rebuilds it in another id.
    const bundle = await send(id, 'GET', '/__sandbox/repro')
    expect(bundle.status).toBe(200)
    expect(bundle.body.base.why).toMatch(/resumed from stored state/)
    expect((await send('every-part-replayed', 'POST', '/__sandbox/repro', bundle.body)).status).toBe(200)
    expectSameParts(
      await snapshot('every-part-replayed'),
      filled,
      'a bundle of the woken world replayed into another id',
      WORLD_PARTS.filter((p) => typeof p.bundle === 'string' && p.key !== 'records'),
    )
  }, 120_000)
})
