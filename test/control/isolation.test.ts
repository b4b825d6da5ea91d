import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, bearer, freshId, json, signIn } from '../support/client.js'
import { NOW, runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const HOUR = 3_600_000

describe.each(runtimes)('isolated sandboxes through $name', (runtime) => {
  const rt = useSandbox(runtime)

  const as = (id: string) => ({ 'x-sandbox-id': id })
  const ctl = async (id: string | undefined, method: string, path: string, body?: unknown) =>
    (await rt.client(null, id).control.send(method, path, body)).json()
  const unreviewed = async (id: string | undefined, token: string) =>
    (await (await rt.fetch('/api/notifications?status=unreviewed&limit=50', bearer(token, id ? as(id) : {}))).json())
      .data

  it("8 parallel workers writing and reading never see each other's writes", async () => {
    const base = await unreviewed(undefined, ADMIN_TOKEN)
    const ids = Array.from({ length: 8 }, (_, i) => `worker-${i}`)
    const tokens = await Promise.all(
      ids.map(async (id, i) => {
        const token = await signIn(rt, 'admin@fleet.test', as(id))
        const mine = (await unreviewed(id, token)).notifications.slice(0, i + 1)
        for (const n of mine) {
          const res = await rt.fetch(`/api/notifications/${n.id}`, {
            method: 'PATCH',
            headers: { ...bearer(token, as(id)).headers, 'content-type': 'application/json' },
            body: JSON.stringify({ status: 'reviewed' }),
          })
          expect(res.status).toBe(200)
        }
        for (let k = 0; k <= i; k++)
          expect(
            (await rt.fetch('/api/auth/password-reset/request', json({ email: 'admin@fleet.test' }, as(id)))).status,
          ).toBe(200)
        await ctl(id, 'POST', '/clock', { advanceBy: `${i + 1}h` })
        await ctl(id, 'PUT', '/scenarios', { active: i % 2 ? [] : [{ name: 'slow', options: { ms: i } }] })
        return token
      }),
    )
    await Promise.all(
      ids.map(async (id, i) => {
        expect((await unreviewed(id, tokens[i])).unreviewedCount).toBe(base.unreviewedCount - (i + 1))
        expect((await ctl(id, 'GET', '/outbox')).outbox).toHaveLength(i + 1)
        const health = await ctl(id, 'GET', '/health')
        expect(health.sandbox).toBe(id)
        expect(health.scenarios).toEqual(i % 2 ? [] : ['slow'])
        const moved = Date.parse(health.now) - Date.parse(NOW)
        expect(moved).toBeGreaterThanOrEqual((i + 1) * HOUR)
        expect(moved).toBeLessThan((i + 1) * HOUR + HOUR / 2)
        expect(
          (await ctl(id, 'GET', '/requests')).requests.filter((e: { method: string }) => e.method === 'PATCH'),
        ).toHaveLength(i + 1)
        // A session belongs to its sandbox.
        const foreign = await rt.fetch('/api/auth/users/me', bearer(tokens[i], as(ids[(i + 1) % 8])))
        expect(foreign.status).toBe(401)
      }),
    )
    // The default sandbox saw none of it.
    expect((await unreviewed(undefined, ADMIN_TOKEN)).unreviewedCount).toBe(base.unreviewedCount)
    expect((await ctl(undefined, 'GET', '/outbox')).outbox).toEqual([])
    expect((await ctl(undefined, 'GET', '/health')).scenarios).toEqual([])
  })

  // Isolated sandboxes share the seeded records until they write (copy on write, src/core/store/table.ts).
  it('a record write in one sandbox shows in no other, nor in the seed; a reset, a snapshot and a restore keep it so', async () => {
    const a = await rt.isolated()
    const b = await rt.isolated()
    const seeded = {
      layers: (await a.get('/api/layers')).body.data,
      providers: (await a.get('/api/maintenance/service-providers')).body.data,
    }
    const [layer] = seeded.layers
    const [provider] = seeded.providers
    const read = async (c: typeof a) => ({
      layers: (await c.get('/api/layers')).body.data,
      providers: (await c.get('/api/maintenance/service-providers')).body.data,
    })
    expect((await a.send('DELETE', `/api/layers/${layer.id}`)).status).toBe(200)
    expect(
      (
        await a.send('PUT', `/api/maintenance/service-providers/${provider.id}`, {
          email: 'copy@write.test',
          name: 'Written in a',
        })
      ).status,
    ).toBe(200)
    const written = await read(a)
    expect(written.layers.map((l: { id: string }) => l.id)).not.toContain(layer.id)
    expect(written.providers.find((p: { id: string }) => p.id === provider.id)).toMatchObject({
      email: 'copy@write.test',
      name: 'Written in a',
    })
    // Neither a sandbox forked before the write, nor one after it, nor the default sees it.
    expect(await read(b)).toEqual(seeded)
    expect(await read(await rt.isolated())).toEqual(seeded)
    expect(await read(rt.client(ADMIN_TOKEN))).toEqual(seeded)
    // b writes the same collections its own way; a keeps its own.
    expect(
      (await b.send('PUT', `/api/maintenance/service-providers/${provider.id}`, { email: 'other@write.test' })).status,
    ).toBe(200)
    expect(await read(a)).toEqual(written)
    // A snapshot of a restores into a new sandbox as it is; a write there leaves a as it is.
    const snapshot = (await a.control.get('/snapshot')).body
    const c = rt.client(ADMIN_TOKEN, freshId('restored'))
    expect((await c.control.put('/snapshot', snapshot)).status).toBe(200)
    expect(await read(c)).toEqual(written)
    expect((await c.send('DELETE', `/api/layers/${seeded.layers[1].id}`)).status).toBe(200)
    expect(await read(a)).toEqual(written)
    // A reset brings the seed back.
    expect((await a.control.post('/reset', {})).status).toBe(200)
    expect(await read(a.as(ADMIN_TOKEN))).toEqual(seeded)
  })

  it('the cookie sandbox-id selects the same sandbox as the header', async () => {
    await rt.fetch('/api/auth/password-reset/request', json({ email: 'viewer@fleet.test' }, as('cookie-jar')))
    const byCookie = await (
      await rt.fetch('/__sandbox/outbox', { headers: { cookie: 'theme=dark; sandbox-id=cookie-jar' } })
    ).json()
    expect(byCookie.outbox).toHaveLength(1)
    expect(byCookie.outbox[0].to).toBe('viewer@fleet.test')
    // The header wins over the cookie.
    const both = await (
      await rt.fetch('/__sandbox/health', { headers: { cookie: 'sandbox-id=cookie-jar', 'x-sandbox-id': 'other-jar' } })
    ).json()
    expect(both.sandbox).toBe('other-jar')
  })

  it('racing first requests of one id share one sandbox', async () => {
    await Promise.all(
      Array.from({ length: 8 }, () =>
        rt.fetch('/api/auth/password-reset/request', json({ email: 'admin@fleet.test' }, as('race'))),
      ),
    )
    expect((await ctl('race', 'GET', '/outbox')).outbox).toHaveLength(8)
  })

  it('lists and drops isolated sandboxes (extension)', async () => {
    await ctl('to-drop', 'GET', '/health')
    const listed = await ctl(undefined, 'GET', '/sandboxes')
    expect(listed.idleMs).toBe(30 * 60_000)
    expect(listed.sandboxes.map((s: { id: string }) => s.id)).toContain('to-drop')
    expect(listed.sandboxes[0]).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      idleMs: expect.any(Number),
    })
    const dropped = await rt.fetch('/__sandbox/sandboxes/to-drop', { method: 'DELETE' })
    expect(dropped.status).toBe(200)
    expect((await dropped.json()).sandboxes.map((s: { id: string }) => s.id)).not.toContain('to-drop')
    expect((await rt.fetch('/__sandbox/sandboxes/to-drop', { method: 'DELETE' })).status).toBe(404)
    const def = await rt.fetch('/__sandbox/sandboxes/default', { method: 'DELETE' })
    expect(def.status).toBe(400)
    expect((await def.json()).message).toContain('id: the default sandbox cannot be dropped')
  })

  it('refuses a malformed x-sandbox-id with a 400 naming it', async () => {
    for (const id of ['has space', 'x'.repeat(129), 'semi;colon']) {
      const res = await rt.fetch('/api/auth/users/me', { headers: { 'x-sandbox-id': id } })
      expect(res.status).toBe(400)
      expect((await res.json()).message).toContain('x-sandbox-id: must be 1 to 128')
    }
  })
})

describe.each(runtimes)('eviction through $name', (runtime) => {
  describe('idle', () => {
    const rt = useSandbox(runtime, { sandboxIdleMs: 5 })

    it('drops a sandbox idle past sandboxIdleMs; its id then starts fresh', async () => {
      await rt.fetch(
        '/api/auth/password-reset/request',
        json({ email: 'admin@fleet.test' }, { 'x-sandbox-id': 'sleepy' }),
      )
      await new Promise((resolve) => setTimeout(resolve, 30))
      const listed = await (await rt.fetch('/__sandbox/sandboxes')).json()
      expect(listed.idleMs).toBe(5)
      expect(listed.sandboxes.map((s: { id: string }) => s.id)).not.toContain('sleepy')
      expect(
        (await (await rt.fetch('/__sandbox/outbox', { headers: { 'x-sandbox-id': 'sleepy' } })).json()).outbox,
      ).toEqual([])
    })
  })

  describe('full', () => {
    const rt = useSandbox(runtime, { maxSandboxes: 3 })

    it('keeps at most maxSandboxes, dropping the least recently used', async () => {
      for (const id of ['a', 'b', 'c', 'a', 'd'])
        await rt.fetch('/__sandbox/health', { headers: { 'x-sandbox-id': id } })
      const listed = await (await rt.fetch('/__sandbox/sandboxes')).json()
      expect(listed.sandboxes.map((s: { id: string }) => s.id)).toEqual(['c', 'a', 'd'])
    })
  })
})
