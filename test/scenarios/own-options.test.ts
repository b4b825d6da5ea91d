import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { z as z3 } from 'zod/v3'
import { HttpError, defineScenario, setupSandboxServer } from '../../src/adapters/node/index.js'
import type { StandardSchemaV1 } from '../../src/core/scenarios/options.js'

// `options` of a scenario of your own: none, or any Standard Schema (docs/your-own-answers.md).

/** No options: it takes none but `routes`. */
const bare = defineScenario({
  name: 'team-bare',
  description: 'every answer is a 418',
  advice: 'none: it is a test',
  edge: () => ({ status: 418, body: { message: 'bare' } }),
})

/** zod 3 (3.24 and later carry `~standard`), throwing an HttpError. */
const closed = defineScenario({
  name: 'team-closed',
  description: 'writes answer 503 with Retry-After',
  advice: 'Retry writes later',
  options: z3.object({ retryAfter: z3.number().int().min(0).default(60) }).strict(),
  edge(ctx, o) {
    expectTypeOf(o).toEqualTypeOf<{ retryAfter: number }>()
    if (ctx.request.method === 'GET') return undefined
    throw new HttpError(503, 'closed', { 'retry-after': String(o.retryAfter) })
  },
})

/** A schema of no library: anything with `~standard` is taken (valibot's and arktype's look so). */
const percent: StandardSchemaV1<{ rate?: number }, { rate: number }> = {
  '~standard': {
    version: 1,
    vendor: 'hand-made',
    validate(value) {
      const rate = (value as { rate?: unknown }).rate ?? 50
      return typeof rate === 'number' && rate >= 0 && rate <= 100
        ? { value: { rate } }
        : { issues: [{ message: 'must be a number from 0 to 100', path: [{ key: 'rate' }] }] }
    },
  },
}
const sometimes = defineScenario({
  name: 'team-sometimes',
  description: 'answers 429 to rate% of requests',
  advice: 'Retry after a while',
  options: percent,
  edge: (ctx, o) => (o.rate === 100 ? { status: 429, body: { message: 'later' } } : undefined),
})

const ORIGIN = 'http://own-options.test'
const sandbox = setupSandboxServer({ origins: [ORIGIN], scenarios: [bare, closed, sometimes] })
beforeAll(sandbox.listen)
afterAll(sandbox.close)

const send = (method: string, path: string, scenario: string) =>
  fetch(`${ORIGIN}${path}`, { method, headers: { 'x-sandbox-scenario': scenario, 'x-sandbox-id': 'own-options' } })

describe('the options of your own scenarios: none, or any Standard Schema', () => {
  it('a scenario without options runs and refuses any option but routes', async () => {
    expect((await send('GET', '/api/layers', 'team-bare')).status).toBe(418)
    expect((await send('GET', '/api/layers', 'team-bare;routes=listVehicleTypes')).status).toBe(401)
    const wrong = await send('GET', '/api/layers', 'team-bare;x=1')
    expect([wrong.status, (await wrong.json()).message]).toEqual([
      400,
      'x-sandbox-scenario: team-bare.options: unknown option x; team-bare takes routes',
    ])
  })

  it('zod 3 options are read with their defaults, and a hook that throws HttpError answers its status', async () => {
    const res = await send('POST', '/api/session-auth/sign-in/email', 'team-closed;retryAfter=5')
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '5'])
    expect((await send('POST', '/api/session-auth/sign-in/email', 'team-closed')).headers.get('retry-after')).toBe('60')
    expect((await (await send('GET', '/api/layers', 'team-closed;retryAfter=-1')).json()).message).toMatch(
      /^x-sandbox-scenario: team-closed\.options\.retryAfter: /,
    )
    expect((await (await send('GET', '/api/layers', 'team-closed;other=1')).json()).message).toBe(
      'x-sandbox-scenario: team-closed.options: unknown option other; team-closed takes retryAfter, routes',
    )
  })

  it('a schema of another library: read, its issue named by path', async () => {
    expect((await send('GET', '/api/layers', 'team-sometimes;rate=100')).status).toBe(429)
    expect((await send('GET', '/api/layers', 'team-sometimes')).status).toBe(401)
    expect((await (await send('GET', '/api/layers', 'team-sometimes;rate=200')).json()).message).toBe(
      'x-sandbox-scenario: team-sometimes.options.rate: must be a number from 0 to 100',
    )
  })

  it('the catalog lists each with its defaults; a JSON Schema only where the library gives one', async () => {
    const { scenarios } = (await (await fetch(`${ORIGIN}/__sandbox/scenarios`)).json()) as {
      scenarios: { name: string; options: unknown; schema: { description?: string }; optionList: { name: string }[] }[]
    }
    const byName = (name: string) => scenarios.find((s) => s.name === name)!
    expect(byName('team-bare')).toMatchObject({ options: {}, optionList: [{ name: 'routes' }] })
    expect(byName('team-closed')).toMatchObject({ options: { retryAfter: 60 } })
    expect(byName('team-sometimes')).toMatchObject({
      options: { rate: 50 },
      schema: { description: 'options checked by hand-made; their JSON Schema is not known' },
    })
  })

  it('typed: options of each are checked at compile time', () => {
    // @ts-expect-error: retryAfter is a number
    expect(() => sandbox.use({ name: 'team-closed', options: { retryAfter: 'x' } })).toThrow(
      'team-closed.options.retryAfter',
    )
    // @ts-expect-error: rate is a number
    expect(() => sandbox.use({ name: 'team-sometimes', options: { rate: 'x' } })).toThrow('team-sometimes.options.rate')
    // @ts-expect-error: team-bare takes no option but routes
    expect(() => sandbox.use({ name: 'team-bare', options: { x: 1 } })).toThrow('unknown option x')
    sandbox.use({ name: 'team-bare', options: { routes: ['listLayers'] } })
    sandbox.use()
  })

  it('refuses at start what is no Standard Schema, or one that does not accept {}', () => {
    const bad = (options: unknown) => () => setupSandboxServer({ scenarios: [{ ...bare, options } as never] })
    expect(bad({ safeParse: () => ({ success: true }) })).toThrow(
      'scenarios.0: options: must be a Standard Schema (zod 3.24 or later, zod 4, valibot, arktype, ...), or left out for none',
    )
    expect(bad(z3.object({ n: z3.number() }))).toThrow(
      'scenarios.0: options: must accept {} (give every option a default): n: Required',
    )
  })
})
