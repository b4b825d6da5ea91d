import { describe, expect, expectTypeOf, it } from 'vitest'
import { setupSandboxServer } from '../../src/adapters/node/index.js'
import type { OverrideInput } from '../../src/adapters/node/index.js'
import type { SandboxParameters } from '../../src/adapters/storybook/index.js'
import type { OperationId, ToolName } from '../../src/api/index.js'
import { toolsOf } from '../../src/mcp/tools.js'
import { serverRoutes } from '../../src/apps/server-app.js'
import { servedRoutes } from '../../src/core/route/route.js'

/**
 * Operation ids are a union in the types (generated/api/operation-ids.ts, generated with the API's
 * types): each `@ts-expect-error` below fails `npm run typecheck` the day that line compiles.
 */
describe('typed operation ids', () => {
  it('an override and a scoped scenario name operations of the table; a typo is a type error and a 400', async () => {
    const good: OverrideInput = { match: { method: 'GET', operation: 'listVehicleTypes' }, respond: { status: 503 } }
    // @ts-expect-error: listVehicleTypez is no operation
    const typo: OverrideInput = { match: { method: 'GET', operation: 'listVehicleTypez' }, respond: { status: 503 } }
    expectTypeOf<'listVehicleTypes'>().toExtend<OperationId>()
    expectTypeOf<'listVehicleTypez'>().not.toExtend<OperationId>()
    const sandbox = setupSandboxServer({ origins: ['http://operation-types.test'] })
    await sandbox.listen()
    try {
      expect((await sandbox.override(good)).operation).toBe('listVehicleTypes')
      await expect(sandbox.override(typo)).rejects.toThrow(/match\.operation: no operation .*listVehicleTypez/)
      // @ts-expect-error: listVehicleTypez is no operation
      expect(() => sandbox.use({ name: 'slow', options: { routes: ['listVehicleTypez'] } })).toThrow(/listVehicleTypez/)
      sandbox.use({
        name: 'slow',
        options: { routes: ['listVehicleTypes', 'GET /api/layers', '* /api/notifications/*'] },
      })
    } finally {
      sandbox.close()
    }
  })

  it("a scoped scenario's routes: operation ids or METHOD /path patterns, in Storybook parameters too", () => {
    expectTypeOf({
      scenario: [{ name: 'slow' as const, options: { routes: ['listLayers' as const] } }],
    }).toExtend<SandboxParameters>()
    expectTypeOf({
      scenario: [{ name: 'slow' as const, options: { routes: ['listLayerz' as const] } }],
    }).not.toExtend<SandboxParameters>()
  })

  // That the union is exactly the served tools: test/package/api.test.ts (gen-api.mjs --check).
  it('MCP tool names: a union of the tools the server lists', () => {
    const names: string[] = [...toolsOf(servedRoutes(serverRoutes, {})).values()].map((tool) => tool.name)
    expectTypeOf<ReturnType<typeof toolsOf> extends Map<string, infer T> ? T : never>()
      .toHaveProperty('name')
      .toEqualTypeOf<ToolName>()
    expectTypeOf<'listVehicleTypes'>().toExtend<ToolName>()
    // Signing in has no tool (an agent holds a token already).
    expectTypeOf<'signInEmail'>().not.toExtend<ToolName>()
    expect(names).toContain('listVehicleTypes' satisfies ToolName)
    expect(names).not.toContain('signInEmail')
  })
})
