import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN } from '../support/client.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { acme } from '../billing/seeded.js'

// `--no-changes` (SANDBOX_NO_CHANGES, `changes: false`): what the bench compares recording with.
describe.each(runtimes)('a sandbox started with --no-changes, through $name', (runtime) => {
  const rt = useSandbox(runtime, { changes: false })

  it('journals writes without changes, and refuses a rewind or a past snapshot naming the flag; the world stays as it is', async () => {
    const s = rt.fresh('no-changes', ADMIN_TOKEN)
    const publish = await s.post(`/api/v1/billing/invoices/${acme.drafts[0]}/publish`, {})
    expect(publish.status).toBe(200)
    const { requests } = (await s.control.get('/requests')).body as {
      requests: { id: number; method: string; changes?: unknown }[]
    }
    const write = requests.find((e) => e.method === 'POST')!
    expect(write).toBeDefined()
    expect(write).not.toHaveProperty('changes')
    const before = (await s.control.get('/snapshot')).body
    const message = `before: this sandbox records no changes (it was started with --no-changes, SANDBOX_NO_CHANGES), so no request can be rewound`
    const rewound = await s.control.post('/rewind', { before: write.id })
    expect([rewound.status, rewound.body.message]).toEqual([409, message])
    const past = await s.control.get(`/snapshot?before=${write.id}`)
    expect([past.status, past.body.message]).toEqual([409, message])
    const after = (await s.control.get('/snapshot')).body
    // The clock runs; the rest is as it was.
    expect({ ...after, journal: undefined, clock: undefined }).toEqual({
      ...before,
      journal: undefined,
      clock: undefined,
    })
  })
})
