import { describe, expect, it } from 'vitest'
import * as accounts from '../../fixtures/accounts.js'
import { scenarios } from '../../scenarios/index.js'
import { PageWriter } from '../../src/core/notifications/page.js'
import { Sandboxes, sandboxIdOf } from '../../src/core/sandbox/sandboxes.js'
import { tableSchemas, type TableName } from '../../src/core/store/collections.js'

const NOW = '2026-11-22T12:00:00.000Z'

/** The registry against a hand-moved real time: idle eviction without waiting. */
function registry(options: { sandboxIdleMs?: number; maxSandboxes?: number } = {}) {
  let t = 0
  const sandboxes = new Sandboxes(
    { accounts, scenarioDefinitions: scenarios, pages: new PageWriter(), seed: 1, now: NOW, size: 'small', ...options },
    () => t,
  )
  return { sandboxes, pass: (ms: number) => void (t += ms) }
}

describe('Sandboxes', () => {
  it("creates an isolated sandbox on first use from the default's seed and seeded instant", async () => {
    const { sandboxes } = registry()
    const base = await sandboxes.default
    const a = await sandboxes.get('a')
    expect(a).not.toBe(base)
    expect(a.id).toBe('a')
    expect(a.seed).toBe(base.seed)
    expect(a.seededAt).toBe(base.seededAt)
    expect(a.world.rows()).toEqual(base.world.rows())
    expect(await sandboxes.get('a')).toBe(a)
    expect(await sandboxes.get(undefined)).toBe(base)
    expect(await sandboxes.get('default')).toBe(base)
  })

  it('drops sandboxes idle past sandboxIdleMs (real time, not the sandbox clock)', async () => {
    const { sandboxes, pass } = registry({ sandboxIdleMs: 1000 })
    const a = await sandboxes.get('a')
    await sandboxes.get('b')
    pass(600)
    await sandboxes.get('b')
    a.clock.advance(365 * 86_400_000)
    pass(600)
    expect(sandboxes.ids()).toEqual(['a', 'b'])
    await sandboxes.get(undefined)
    expect(sandboxes.ids()).toEqual(['b'])
    expect(await sandboxes.get('a')).not.toBe(a)
  })

  it('never drops a sandbox while a request holds it', async () => {
    const { sandboxes, pass } = registry({ sandboxIdleMs: 1000 })
    const a = await sandboxes.acquire('a')
    pass(5000)
    await sandboxes.get(undefined)
    expect(sandboxes.ids()).toEqual(['a'])
    sandboxes.release(a)
    pass(500)
    await sandboxes.get(undefined)
    expect(sandboxes.ids()).toEqual(['a'])
    pass(1500)
    await sandboxes.get(undefined)
    expect(sandboxes.ids()).toEqual([])
  })

  it('keeps at most maxSandboxes, the least recently used going first', async () => {
    const { sandboxes } = registry({ maxSandboxes: 2 })
    await sandboxes.get('a')
    await sandboxes.get('b')
    await sandboxes.get('a')
    await sandboxes.get('c')
    expect(sandboxes.ids()).toEqual(['a', 'c'])
  })

  it('racing first uses of one id get one sandbox', async () => {
    const { sandboxes } = registry()
    const all = await Promise.all(Array.from({ length: 8 }, () => sandboxes.get('race')))
    expect(new Set(all).size).toBe(1)
  })

  // What keeps 200 live sandboxes small (docs/bounds.md): a sandbox holds only what it wrote.
  it('an isolated sandbox shares every seeded collection with the others until it writes one', async () => {
    const { sandboxes } = registry()
    const base = await sandboxes.default
    const a = await sandboxes.get('a')
    const b = await sandboxes.get('b')
    // The @msw/data tables; the notifications' index is shared alike (below).
    const names = Object.keys(tableSchemas) as TableName[]
    for (const name of names) {
      expect(a.world.tables[name].collection === base.world.tables[name].collection, name).toBe(true)
      expect(b.world.tables[name].collection === a.world.tables[name].collection, name).toBe(true)
    }
    const [user] = base.world.tables.users.all()
    expect(a.world.tables.users.get(user.id)).toBe(user)
    const [notification] = base.world.notifications.all()
    expect(b.world.notifications.get(notification.n.id)).toBe(notification)
    // A write copies that collection alone, for that sandbox alone.
    const [layer] = a.world.tables.layers.all()
    await a.world.tables.layers.remove(layer.id)
    for (const name of names)
      expect(a.world.tables[name].collection === b.world.tables[name].collection, name).toBe(name !== 'layers')
    expect(b.world.tables.layers.get(layer.id)).toBe(layer)
    expect(base.world.tables.layers.get(layer.id)).toBe(layer)
    // A reset shares the seed again.
    await a.reset()
    for (const name of names)
      expect(a.world.tables[name].collection === b.world.tables[name].collection, name).toBe(true)
  })
})

describe('sandboxIdOf', () => {
  const req = (headers: Record<string, string>) => new Request('http://x.test/api', { headers })
  it('reads the header, else the cookie, else nothing', () => {
    expect(sandboxIdOf(req({ 'x-sandbox-id': ' w1 ' }))).toBe('w1')
    expect(sandboxIdOf(req({ cookie: 'a=1; sandbox-id=w2; b=2' }))).toBe('w2')
    expect(sandboxIdOf(req({ cookie: 'sandbox-id=w%3A3' }))).toBe('w:3')
    expect(sandboxIdOf(req({ cookie: 'sandbox-id=%E0%A4%A' }))).toBe('%E0%A4%A')
    expect(sandboxIdOf(req({ 'x-sandbox-id': 'h', cookie: 'sandbox-id=c' }))).toBe('h')
    expect(sandboxIdOf(req({ cookie: 'my-sandbox-id=c' }))).toBeUndefined()
    expect(sandboxIdOf(req({}))).toBeUndefined()
  })
})
