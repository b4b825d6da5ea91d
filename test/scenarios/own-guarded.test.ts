import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupSandboxServer } from '../../src/adapters/node/index.js'
import { scenarioLimits } from '../../src/own-scenarios/guard.js'

// msw/node, in process: your scenarios passed as values are bounded and named as the files of --scenarios are.
const hang = {
  name: 'team-hang',
  description: 'its edge hook never settles',
  advice: 'none: it is a test',
  edge: () => new Promise(() => undefined),
}
const broken = {
  name: 'team-broken',
  description: 'its validator throws on boom',
  advice: 'none: it is a test',
  options: {
    '~standard': {
      version: 1 as const,
      vendor: 'test',
      validate: (v: unknown) => {
        if ((v as { boom?: boolean } | undefined)?.boom) throw new Error('kaboom')
        return { value: (v ?? {}) as Record<string, unknown> }
      },
    },
  },
}

const ORIGIN = 'http://guarded.test'
const sandbox = setupSandboxServer({ origins: [ORIGIN], scenarios: [hang, broken] })
const bound = scenarioLimits.timeoutMs
beforeAll(() => {
  scenarioLimits.timeoutMs = 200
  sandbox.listen()
})
afterAll(() => {
  scenarioLimits.timeoutMs = bound
  sandbox.close()
})

describe('fleet-sandbox/node: your own scenarios, slow or broken', () => {
  it('a hook that never settles answers 500 naming the scenario, journaled; a throwing validator names it too', async () => {
    const res = await fetch(`${ORIGIN}/api/layers`, { headers: { 'x-sandbox-scenario': 'team-hang' } })
    expect(res.status).toBe(500)
    expect((await res.json()).message).toContain(
      'scenario "team-hang" (scenarios.0): its edge hook did not settle within 200 ms',
    )
    expect(sandbox.sandbox().journal.list().at(-1)).toMatchObject({
      status: 500,
      faults: expect.arrayContaining(['team-hang', 'scenario-timeout']),
    })
    const refused = await fetch(`${ORIGIN}/api/layers`, { headers: { 'x-sandbox-scenario': 'team-broken;boom=true' } })
    expect(refused.status).toBe(500)
    expect((await refused.json()).message).toContain(
      'scenario "team-broken" (scenarios.1): its options schema threw (kaboom)',
    )
  })
})
