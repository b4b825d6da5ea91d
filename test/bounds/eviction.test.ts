import { describe, expect, it } from 'vitest'
import { usage } from '../../src/cli/cli.js'
import { ADMIN_TOKEN } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

describe.each(runtimes)('eviction of isolated sandboxes through $name', (runtime) => {
  const lines: string[] = []
  const rt = useSandbox(runtime, { maxSandboxes: 2, log: (line) => void lines.push(line) })

  it('evicts the least recently used past --max-sandboxes, and says so in the log and GET /__sandbox/sandboxes', async () => {
    const first = rt.client(ADMIN_TOKEN, 'first')
    const fresh = (await first.control.get('/clock')).body.now
    expect((await first.control.post('/clock', { advanceBy: '30d' })).status).toBe(200)
    await rt.client(null, 'second').get('/api/notifications')
    await rt.client(null, 'third').get('/api/notifications')

    // On workerd the line crosses a pipe: it may arrive just after the answer.
    await expect
      .poll(() => lines.filter((l) => l.includes('evicted')))
      .toEqual(['sandbox "first" evicted with its state: the least recently used of 2 (--max-sandboxes)'])
    const listed = (await rt.client().control.get('/sandboxes')).body
    expect(listed).toMatchObject({
      maxSandboxes: 2,
      evicted: { count: 1, recent: [{ id: 'first', reason: 'capacity', at: expect.any(String) }] },
    })
    expect(listed.sandboxes.map((s: { id: string }) => s.id)).toEqual(['second', 'third'])
    // Its state went with it: the next request with its id starts fresh.
    expect(Date.parse((await first.control.get('/clock')).body.now)).toBeLessThan(Date.parse(fresh) + 86_400_000)
  })
})

describe('--max-sandboxes in --help', () => {
  it("says that a new sandbox id evicts another caller's sandbox", () => {
    expect(usage()).toMatch(/--max-sandboxes .*evicts the least recently used/)
  })
})
