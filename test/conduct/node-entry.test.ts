import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { defineScenario, setupSandboxServer } from '../../src/adapters/node/index.js'
import { ADMIN_TOKEN, at, client } from '../support/client.js'

const api = client(at('http://api.fleet.test'), { token: ADMIN_TOKEN })
const world = (id: string) => client(at('http://api.fleet.test'), { token: ADMIN_TOKEN, sandbox: id })

describe('setupSandboxServer({ conduct }): a test whose world has findings fails at reset()', () => {
  const sandbox = setupSandboxServer({ conduct: 'fail' })
  beforeAll(sandbox.listen)
  afterAll(sandbox.close)

  it('fails with the findings of the default world and of an x-sandbox-id world, then starts clean', async () => {
    expect((await api.get('/api/v1/technician/get/nope')).status).toBe(404)
    expect((await api.get('/api/v1/technician/get/nope')).status).toBe(404)
    const report = await sandbox.conduct()
    expect(report.findings.map((f) => f.rule)).toEqual(['retried-refusal'])
    await expect(sandbox.reset()).rejects.toThrow(
      /the app broke the spec's retry rules[\s\S]*default world: retried-refusal \(Retry rules 2\), requests 1, 2/,
    )
    // The reset happened all the same.
    expect((await sandbox.conduct()).findings).toEqual([])

    const other = world('conduct-node')
    await other.get('/api/v1/technician/get/gone')
    await other.get('/api/v1/technician/get/gone')
    expect((await sandbox.conduct('conduct-node')).findings).toHaveLength(1)
    await expect(sandbox.reset()).rejects.toThrow(/conduct-node: retried-refusal/)
  })

  it('a well-behaved test passes its reset', async () => {
    expect((await api.get('/api/v1/technician/get/nope')).status).toBe(404)
    expect((await api.get('/api/v1/technician/list')).status).toBe(200)
    await expect(sandbox.reset()).resolves.toBeUndefined()
  })
})

describe("setupSandboxServer({ conduct: 'warn' })", () => {
  const sandbox = setupSandboxServer({ conduct: 'warn' })
  beforeAll(sandbox.listen)
  afterAll(sandbox.close)

  it('prints the findings and passes', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    try {
      await api.get('/api/v1/technician/get/nope')
      await api.get('/api/v1/technician/get/nope')
      await expect(sandbox.reset()).resolves.toBeUndefined()
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('retried-refusal'))
    } finally {
      warn.mockRestore()
    }
  })

  it('refuses a wrong value, naming it', () => {
    expect(() => setupSandboxServer({ conduct: 'loud' as never })).toThrow(
      `fleet-sandbox/node: conduct: must be 'fail', 'warn' or 'off' (got "loud")`,
    )
  })
})

describe("a scenario of your own in the conduct's coverage", () => {
  const sandbox = setupSandboxServer({
    scenarios: [
      defineScenario({
        name: 'technicians-away',
        description: 'nothing: it declares where it applies',
        advice: 'none',
        appliesTo: (route) => route.id === 'getTechnician',
      }),
      defineScenario({
        name: 'broken-applies',
        description: 'its appliesTo throws',
        advice: 'none',
        appliesTo: () => {
          throw new Error('boom')
        },
      }),
    ],
  })
  beforeAll(sandbox.listen)
  afterAll(sandbox.close)

  it('is listed unmet where its appliesTo says; one that throws applies nowhere, and the report still answers', async () => {
    await api.get('/api/v1/technician/get/nope')
    const { coverage } = await sandbox.conduct()
    const row = coverage.find((c) => c.operationId === 'getTechnician')!
    expect(row.scenarios.unmet).toContain('technicians-away')
    expect(row.scenarios.unmet).not.toContain('broken-applies')
  })
})
