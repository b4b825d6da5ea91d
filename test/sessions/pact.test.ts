import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { noPactTools } from '../support/needs.js'
import { verifyEveryOrder } from '../support/pact-verify.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { budget } from './budget.js'
import { WORLDS, session } from './grammar.js'
import { freshWorld } from './properties.js'
import { Runner } from './runner.js'

const server = runtimes.find((r) => r.name.startsWith('hono'))!

/**
 * The pact of any session verifies with the official verifier against a fresh sandbox, in
 * recorded order, reversed, shuffled, each interaction alone and twice against one sandbox
 * (test/support/pact-verify.ts). On Node 22+ with the Pact tools (CI's second leg).
 */
describe.skipIf(noPactTools())('the pact of any session verifies in every order (Node server)', () => {
  const rt = useSandbox(server)

  it('recorded, reversed, shuffled, alone, twice', { timeout: 600_000 }, async () => {
    let verified = 0
    const property = fc.asyncProperty(
      session({ maxSteps: 12 }),
      fc.integer({ min: 1, max: 1000 }),
      async (cmds, seed) => {
        const ids = Array.from({ length: WORLDS }, () => freshWorld('pact'))
        await new Runner({ fetch: rt.fetch, ids }).run(cmds.map((c) => ('w' in c ? { ...c, w: 0 } : c)))
        const pact = await rt.fetch('/__sandbox/contracts/pact', { headers: { 'x-sandbox-id': ids[0] } })
        // A world with no API traffic has no pact (409).
        if (pact.status === 409) return
        expect(pact.status).toBe(200)
        await verifyEveryOrder(await pact.json(), { seed })
        verified++
      },
    )
    await fc.assert(property, { ...budget('pact', 3), timeout: 300_000, interruptAfterTimeLimit: 500_000 })
    console.log(`pact: ${verified} sessions' pacts verified in every order`)
    expect(verified).toBeGreaterThanOrEqual(0)
  })
})
