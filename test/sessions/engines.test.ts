import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerChecker, type Doc } from '../support/openapi-answers.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { WORLDS } from './grammar.js'
import { freshWorld } from './properties.js'
import { sessionProperty, type Tally } from './property.js'
import { budget } from './budget.js'

/**
 * Any session, every promise (docs/debugging.md "Any session"): generated sessions through each
 * engine's front door (real HTTP on the Node server and workerd, msw/node in process), then the
 * properties after each. A failure prints the seed and path that replay it:
 * SESSIONS_SEED=<seed> SESSIONS_PATH=<path> npx vitest run test/sessions/engines.test.ts
 */
describe.each(runtimes)('any session through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it('every world replays from its bundle and its moments, restores from its snapshot, rewinds to any step and runs the rest to the same world, and meets no unasked 5xx nor an answer outside the document', async () => {
    const doc = (await (await rt.fetch('/__sandbox/openapi.json')).json()) as Doc
    const check = answerChecker(doc)
    const tally: Tally = { sessions: 0, steps: 0, requests: 0 }
    const engine = {
      open: async () => ({
        fetch: rt.fetch,
        // Isolated worlds only: the harness keeps the default one unwritten.
        ids: Array.from({ length: WORLDS }, () => freshWorld('session')),
        check,
      }),
    }
    await fc.assert(sessionProperty(engine, tally, { maxSteps: 10 }), budget(runtime.name, 5))
    expect(tally.sessions).toBeGreaterThan(0)
  }, 120_000)
})
