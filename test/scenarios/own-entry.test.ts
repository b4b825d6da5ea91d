import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import * as z from 'zod'
import { defineScenario, setupSandboxServer } from '../../src/adapters/node/index.js'

// A scenario of a team's own: the first `failures` requests of each world answer 503.
const flaky = defineScenario({
  name: 'team-flaky',
  description: 'the first requests of each world answer 503',
  advice: 'Retry once, then show the error',
  options: z.strictObject({ failures: z.number().int().min(1).default(1) }),
  edge(ctx, o) {
    const seen = (ctx.sandbox.scenarioState.get('team-flaky') as number | undefined) ?? 0
    ctx.sandbox.scenarioState.set('team-flaky', seen + 1)
    if (seen >= o.failures) return undefined
    ctx.fault('team-flaky')
    return { status: 503, body: { message: 'flaky' } }
  },
})

const ORIGIN = 'http://own.test'
const sandbox = setupSandboxServer({
  origins: [ORIGIN],
  scenarios: [flaky],
  scenario: [{ name: 'team-flaky', options: { failures: 2 } }],
})
beforeAll(sandbox.listen)
afterEach(sandbox.reset)
afterAll(sandbox.close)

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${ORIGIN}${path}`, { headers })

describe('fleet-sandbox/node: the option `scenarios` (your own, beside the bundled ones)', () => {
  it('is active from the start when `scenario` names it, with its options, and counts per world', async () => {
    expect((await get('/api/layers')).status).toBe(503)
    const other = { 'x-sandbox-id': 'own-entry-b' }
    // Another world starts its own count: its first request fails too, its second goes on.
    expect((await get('/api/layers', other)).status).toBe(503)
    expect((await get('/api/layers')).status).toBe(503)
    expect((await get('/api/layers')).status).toBe(401)
    expect((await get('/api/layers', other)).status).toBe(503)
    expect((await get('/api/layers', other)).status).toBe(401)
    expect(sandbox.sandbox().journal.list().at(0)).toMatchObject({ status: 503, faults: ['team-flaky'] })
  })

  it('is in the catalog and in every way of switching, typed', async () => {
    const catalog = (await (await get('/__sandbox/scenarios')).json()) as {
      scenarios: { name: string; advice: string }[]
    }
    expect(catalog.scenarios.find((s) => s.name === 'team-flaky')).toMatchObject({
      advice: 'Retry once, then show the error',
    })
    sandbox.use('slow;ms=0')
    expect((await get('/api/layers')).status).toBe(401)
    sandbox.use({ name: 'team-flaky', options: { failures: 1 } })
    expect((await get('/api/layers')).status).toBe(503)
    expect(
      (await get('/api/layers', { 'x-sandbox-scenario': 'team-flaky;failures=1;routes=GET /api/vehicle-types' }))
        .status,
    ).toBe(401)
    // @ts-expect-error: failures is a number
    expect(() => sandbox.use({ name: 'team-flaky', options: { failures: 'x' } })).toThrow('team-flaky.options.failures')
    // @ts-expect-error: 'team-flakey' is no scenario
    expect(() => sandbox.use('team-flakey')).toThrow('unknown scenario "team-flakey"')
    expectTypeOf(sandbox.use).parameter(0).extract<{ name: 'team-flaky' }>().toHaveProperty('options')
  })

  it('refuses a scenario that is not one, naming the entry and the field', () => {
    const bad = (scenarios: unknown[]) => () => setupSandboxServer({ scenarios: scenarios as never })
    expect(bad([{ ...flaky, description: '' }])).toThrow(
      'scenarios.0: description: must be a text of 1 to 2,000 characters',
    )
    expect(bad([flaky, { ...flaky, name: 'Bad Name' }])).toThrow(
      'scenarios.1: name: must be 1 to 64 lower-case letters',
    )
    expect(bad([{ ...flaky, name: 'slow' }])).toThrow(
      'scenarios.0: name "slow" is taken by a bundled scenario; rename it',
    )
    expect(bad([flaky, flaky])).toThrow('scenarios.1: name "team-flaky" is taken by scenarios.0; rename it')
    expect(bad([{ ...flaky, options: {} }])).toThrow('scenarios.0: options: must be a Standard Schema')
    expect(bad([{ ...flaky, edge: 'no' }])).toThrow('scenarios.0: edge: must be a function')
    expect(() => setupSandboxServer({ scenarios: 'team-flaky' as never })).toThrow(
      'scenarios: must be a list of scenarios',
    )
    // The bundled ones alone do not know it.
    // @ts-expect-error: without `scenarios`, no such name
    expect(() => setupSandboxServer({ scenario: 'team-flaky' })).toThrow('unknown scenario "team-flaky"')
  })
})
