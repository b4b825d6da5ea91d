import { describe, expect, expectTypeOf, it, onTestFinished } from 'vitest'
import { setupSandboxServer } from '../../src/adapters/node/index.js'
import type { StartSandboxOptions } from '../../src/adapters/browser/index.js'
import type { SandboxParameters } from '../../src/adapters/storybook/index.js'

/**
 * Scenario names and options are typed from `scenarios/`: each `@ts-expect-error` below fails
 * `npm run typecheck` (and `npm test`) the day that line compiles. The runtime checks stay, for
 * JavaScript callers.
 */
describe('typed scenario names and options', () => {
  it('refuses a misspelt name and wrong option types at compile time, and at run time', async () => {
    // @ts-expect-error: 'rate-limted' is no scenario
    expect(() => setupSandboxServer({ scenario: 'rate-limted' })).toThrow('unknown scenario "rate-limted"')
    // @ts-expect-error: failures is a number
    expect(() => setupSandboxServer({ scenario: [{ name: 'rate-limited', options: { failures: 'x' } }] })).toThrow(
      'rate-limited.options.failures',
    )
    // @ts-expect-error: slow takes no option "fast"
    expect(() => setupSandboxServer({ scenario: [{ name: 'slow', options: { fast: 1 } }] })).toThrow(
      'unknown option fast',
    )

    const sandbox = setupSandboxServer({ origins: ['http://types.test'] })
    await sandbox.listen()
    onTestFinished(() => sandbox.close())
    // @ts-expect-error: failures is a number
    expect(() => sandbox.use({ name: 'rate-limited', options: { failures: 'x' } })).toThrow(
      'rate-limited.options.failures',
    )
    // @ts-expect-error: the options of one scenario do not fit another
    expect(() => sandbox.use({ name: 'degraded', options: { failures: 1 } })).toThrow()
    // @ts-expect-error: outcome is accepted or rejected
    expect(() => sandbox.use({ name: 'dte-pending', options: { outcome: 'maybe' } })).toThrow()
  })

  it('a list: every name is checked in the array form; in one string, the first at compile time and the rest at run time', () => {
    // @ts-expect-error: 'slwo' is no scenario
    expect(() => setupSandboxServer({ scenario: ['rate-limited', 'slwo'] })).toThrow('unknown scenario "slwo"')
    // @ts-expect-error: 'rate-limted' is no scenario
    expect(() => setupSandboxServer({ scenario: 'rate-limted,slow' })).toThrow('unknown scenario "rate-limted"')
    // Compiles (see ScenarioListText for why): refused when it runs.
    expect(() => setupSandboxServer({ scenario: 'rate-limited,slwo' })).toThrow('unknown scenario "slwo"')
  })

  it('accepts what the scenarios document, in every entry', () => {
    const node = setupSandboxServer({ scenario: 'rate-limited;failures=1,slow' })
    expect(node.app).toBeDefined()
    const browser: StartSandboxOptions = {
      scenario: [{ name: 'slow', options: { min: 10, max: 20 } }, 'empty', 'dte-pending;outcome=rejected'],
    }
    const story: SandboxParameters = {
      scenario: [
        { name: 'commit-then-fail', options: { timeoutMs: 500 } },
        { name: 'session-expired', options: { ttl: 60 } },
      ],
    }
    expectTypeOf(browser).toExtend<StartSandboxOptions>()
    expectTypeOf(story).toExtend<SandboxParameters>()
    // The storybook parameter is typed the same way.
    expectTypeOf({ scenario: 'forbiden' as const }).not.toExtend<SandboxParameters>()
    expectTypeOf({ scenario: 'forbidden' as const }).toExtend<SandboxParameters>()
  })

  it('types windows on the sandbox clock the same way in use() and in Storybook parameters', async () => {
    const sandbox = setupSandboxServer({ origins: ['http://types.test'], now: '2026-11-22T12:00:00.000Z' })
    await sandbox.listen()
    onTestFinished(() => sandbox.close())
    sandbox.use(
      { name: 'rate-limited', until: '+2m' },
      { name: 'degraded', options: { rate: 1 }, from: '+2m', until: '2026-11-22T12:07:00Z' },
    )
    expect(sandbox.sandbox().active.map((a) => [a.name, a.until])).toEqual([
      ['rate-limited', expect.stringMatching(/Z$/)],
      ['degraded', '2026-11-22T12:07:00.000Z'],
    ])
    // @ts-expect-error: a bound is '+N' with s, m, h or d, or an ISO date-time
    expect(() => sandbox.use({ name: 'slow', from: '2m' })).toThrow('use.0.from: must be an ISO 8601 date-time or +N')
    // @ts-expect-error: the window is from and until
    expect(() => sandbox.use({ name: 'slow', to: '+2m' })).toThrow(
      'use.0: unknown key "to"; an entry takes name, options, from, until',
    )
    expect(() => sandbox.use({ name: 'slow', from: '+5m', until: '+1m' })).toThrow(
      'use.0.until: must be later than from',
    )

    expectTypeOf({
      scenario: [
        { name: 'rate-limited' as const, until: '+2m' as const },
        { name: 'degraded' as const, options: { rate: 0.5 }, from: '+2m' as const, until: '+7m' as const },
      ],
    }).toExtend<SandboxParameters>()
    // w is no unit of a window.
    expectTypeOf({ scenario: [{ name: 'degraded' as const, until: '+1w' as const }] }).not.toExtend<SandboxParameters>()
    const parameters = (p: SandboxParameters) => p
    // @ts-expect-error: the window is from and until, in a story too
    expect(parameters({ scenario: [{ name: 'degraded', to: '+1m' }] })).toBeDefined()
  })
})
