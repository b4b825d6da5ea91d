import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { freshId } from '../support/client.js'

const BUDGET = 4 * 1_048_576

/**
 * Issue 25 item 2: the journals of all sandboxes together stay within one bound, oldest entries
 * out first whichever sandbox holds them. Counted in the bytes the journals hold (bodies
 * included), not timed. workerd keeps one app per sandbox (a Durable Object each), so the
 * process-wide bound is the Node engine's and msw/node's.
 */
describe.each(runtimes.filter((r) => r.name !== 'workerd'))(
  'the journals of all sandboxes together through $name',
  (runtime) => {
    const rt = useSandbox(runtime, { journalsMaxBytes: BUDGET })

    it("hold at most the app's bound, the oldest entries of any sandbox out first", async () => {
      const ids = Array.from({ length: 20 }, () => freshId('budget'))
      // 60 KB bodies, ten per sandbox: 12 MB sent, each journal far within its own 8 MB.
      const body = JSON.stringify({ email: 'y'.repeat(60_000) })
      for (const id of ids) {
        for (let i = 0; i < 10; i++) {
          const res = await rt.fetch('/api/auth/password-reset/request', {
            method: 'POST',
            headers: { 'x-sandbox-id': id, 'content-type': 'application/json' },
            body,
          })
          expect(res.status).toBe(400)
        }
      }
      const journals = await Promise.all(ids.map(async (id) => (await rt.app.sandboxes.get(id)).journal))
      const held = journals.reduce((n, j) => n + j.bytes, 0)
      expect(held).toBeLessThanOrEqual(BUDGET)
      expect(held).toBeGreaterThan(BUDGET - 200_000)
      expect(rt.app.sandboxes.shared.journals!.bytes).toBe(held + (await rt.app.sandboxes.default).journal.bytes)
      // The oldest went first: the first sandboxes hold nothing, the last all ten.
      expect(journals[0].size).toBe(0)
      expect(journals.at(-1)!.size).toBe(10)
      const sizes = journals.map((j) => j.size)
      expect(sizes).toEqual([...sizes].sort((a, b) => a - b))
    })

    it("lets a dropped sandbox's journal leave the count", async () => {
      const id = freshId('budget-drop')
      await rt.fetch('/api/auth/password-reset/request', {
        method: 'POST',
        headers: { 'x-sandbox-id': id, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'z'.repeat(50_000) }),
      })
      const before = rt.app.sandboxes.shared.journals!.bytes
      expect((await rt.fetch(`/__sandbox/sandboxes/${id}`, { method: 'DELETE' })).status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 0))
      expect(rt.app.sandboxes.shared.journals!.bytes).toBeLessThan(before - 50_000)
    })
  },
)
