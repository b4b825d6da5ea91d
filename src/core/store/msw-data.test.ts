import { Collection } from '@msw/data'
import * as z from 'zod'
import { describe, expect, it } from 'vitest'

/**
 * Pins the @msw/data 1.x behaviour the store design works around (README, "The store").
 * If an upgrade changes it, this fails and the workaround can be revisited.
 */
describe('@msw/data as the store needs it', () => {
  const schema = z.object({ id: z.string(), t: z.number() })

  it('orderBy with take paginates before sorting, so sorted pages come from our own index', async () => {
    const c = new Collection({ schema })
    await c.createMany(100, (i) => ({ id: `r${i}`, t: i }))
    const page = c.findMany((q) => q.where({ id: (id: string) => id.startsWith('r') }), {
      orderBy: { t: 'desc' },
      take: 3,
    })
    const newest = c
      .all()
      .slice()
      .sort((a, b) => b.t - a.t)
      .slice(0, 3)
      .map((r) => r.id)
    expect(page.map((r) => r.id)).not.toEqual(newest)
  })

  it('validates records against the schema on create', async () => {
    const c = new Collection({ schema })
    await expect(c.create({ id: 1 } as never)).rejects.toThrow()
  })
})
