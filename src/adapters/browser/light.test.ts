import { describe, expect, it } from 'vitest'
import type { SandboxApp } from '../../core/app/app.js'
import { bundledScenarios, createSandboxApp } from '../../sandbox-app.js'
import { applyLight, lightOf } from './light.js'

const NOW = '2026-11-22T12:00:00.000Z'
const options = { seed: 3, now: NOW, size: 'small' as const, frozenClock: true, control: {} }

/** The default sandbox's whole state, as a reload would find it. */
async function stateOf(app: SandboxApp) {
  return JSON.parse(JSON.stringify((await app.ready()).snapshot()))
}

async function get(app: SandboxApp, path: string, token?: string) {
  const request = new Request(`http://page.test${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  const route = app.routes.find((r) => r.method === 'GET' && r.path === new URL(request.url).pathname)!
  return app.handle(route, request, {})
}

describe('the light state of a page that only read', () => {
  it('put on a world seeded again from the same instant, gives the same whole state', async () => {
    const first = createSandboxApp(options)
    const sandbox = await first.ready()
    // What a page may do without a write: switch scenarios by URL, read, move the frozen clock.
    sandbox.setScenarios(bundledScenarios.parseList('empty,session-expired', 'scenario'))
    expect((await get(first, '/api/notifications', 'atk_sandbox_admin')).status).toBe(200) // an API token: session-expired leaves it alone
    expect((await get(first, '/__sandbox/health')).status).toBe(200)
    sandbox.clock.advance(60_000)
    const light = JSON.parse(JSON.stringify(lightOf(sandbox)))

    const again = createSandboxApp({ ...options, seededAt: sandbox.seededAt })
    applyLight(await again.ready(), light)
    expect(await stateOf(again)).toEqual(await stateOf(first))
  })

  it('keeps the scenarios of the start as they are, without switching them on twice', async () => {
    const withScenario = { ...options, scenarios: bundledScenarios.parseList('empty', 'scenario') }
    const first = createSandboxApp(withScenario)
    const light = lightOf(await first.ready())
    const again = createSandboxApp({ ...withScenario, seededAt: (await first.ready()).seededAt })
    applyLight(await again.ready(), light)
    expect(await stateOf(again)).toEqual(await stateOf(first))
  })

  it('refuses a light state of another seed or shape, changing nothing', async () => {
    const app = createSandboxApp(options)
    const sandbox = await app.ready()
    const before = await stateOf(app)
    expect(() => applyLight(sandbox, { ...lightOf(sandbox), seed: 4 })).toThrow(/does not match/)
    expect(() => applyLight(sandbox, { ...lightOf(sandbox), journal: 'x' as never })).toThrow(/does not match/)
    expect(() => applyLight(sandbox, { ...lightOf(sandbox), scenarios: [{ name: 'nope' }] as never })).toThrow(/unknown scenario/)
    expect(await stateOf(app)).toEqual(before)
  })
})
