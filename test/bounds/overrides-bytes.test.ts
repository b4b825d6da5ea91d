import { describe, expect, it } from 'vitest'
import type { Client } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/**
 * Issue 43 item 4: overrides are bounded in bytes, per world (4 MB as JSON) and for all worlds
 * of an app together (32 MB; `overridesMaxBytes`), not by count only: one world with 200
 * overrides of 1 MB held 200 MB. workerd keeps one app per world (a Durable Object each), so
 * the app-wide bound is the Node engine's and msw/node's.
 */
const big = (kb: number) => ({
  match: { method: 'GET', path: '/api/layers' },
  respond: { status: 200, body: { pad: 'x'.repeat(kb * 1024) } },
})
const added = async (c: Client, kb: number) => (await c.control.post('/overrides', big(kb))).status

describe.each(runtimes)('the bytes of overrides through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('a world holds at most 4 MB of them: the next is a 413 naming the bound, and nothing is added', async () => {
    const c = await rt.isolated()
    for (let i = 0; i < 4; i++) expect(await added(c, 1000)).toBe(201)
    expect(await added(c, 90)).toBe(201)
    const res = await c.control.post('/overrides', big(10))
    expect(res.status).toBe(413)
    expect(res.body.message).toMatch(
      /^overrides: a world holds at most 4194304 bytes of overrides as JSON; these are \d+/,
    )
    const ids = (await c.control.get('/overrides')).body.overrides.map((o: { id: string }) => o.id)
    expect(ids).toHaveLength(5)
    // An edit that would pass it is refused too; one that shrinks is taken, and then there is room.
    expect((await c.control.put(`/overrides/${ids[4]}`, big(200))).status).toBe(413)
    expect((await c.control.put(`/overrides/${ids[0]}`, big(1))).status).toBe(200)
    expect(await added(c, 900)).toBe(201)
  })

  it('a snapshot restore past 4 MB of overrides is a 413 and changes nothing', async () => {
    const c = await rt.isolated()
    expect(await added(c, 900)).toBe(201)
    const snapshot = (await c.control.get('/snapshot')).body
    const one = snapshot.overrides[0]
    const res = await c.control.put('/snapshot', {
      ...snapshot,
      overrides: Array.from({ length: 5 }, (_, i) => ({ ...one, id: `ovr_${i + 10}`, seq: i + 10 })),
    })
    expect(res.status).toBe(413)
    expect(res.body.message).toMatch(/^overrides: a world holds at most 4194304 bytes/)
    expect((await c.control.get('/overrides')).body.overrides).toHaveLength(1)
  })
})

const APP_BYTES = 3 * 1_048_576

describe.each(runtimes.filter((r) => r.name !== 'workerd'))(
  'the bytes of the overrides of all worlds together through $name',
  (runtime) => {
    const rt = useSandbox(runtime, { overridesMaxBytes: APP_BYTES })

    it("stay within the app's bound; a dropped world, a reset or a removal gives its bytes back", async () => {
      const worlds = [await rt.isolated(), await rt.isolated(), await rt.isolated(), await rt.isolated()]
      for (const w of worlds.slice(0, 3)) expect(await added(w, 900)).toBe(201)
      const refused = await worlds[3].control.post('/overrides', big(900))
      expect(refused.status).toBe(413)
      expect(refused.body.message).toMatch(
        /^overrides: all worlds together hold at most 3145728 bytes of overrides as JSON; these are \d+/,
      )
      expect(rt.app.sandboxes.shared.overrides!.used).toBeLessThanOrEqual(APP_BYTES)
      // Small ones still fit; each way out gives the bytes back.
      expect(await added(worlds[3], 10)).toBe(201)
      expect((await worlds[0].control.send('DELETE', '/overrides')).status).toBe(200)
      expect(await added(worlds[3], 900)).toBe(201)
      expect((await worlds[1].control.post('/reset', {})).status).toBe(200)
      expect((await worlds[2].control.send('DELETE', `/sandboxes/${worlds[2].id}`)).status).toBe(200)
      expect(await added(worlds[0], 900)).toBe(201)
      expect(await added(worlds[1], 900)).toBe(201)
      expect(rt.app.sandboxes.shared.overrides!.used).toBeLessThanOrEqual(APP_BYTES)
    })
  },
)
