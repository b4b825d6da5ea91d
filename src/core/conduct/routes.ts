import * as z from 'zod'
import type { ScenarioDefinition } from '../route/context.js'
import { defineRoute } from '../route/route.js'
import { conflict, ok } from '../http/reply.js'
import { RULE_NAMES } from './rules.js'

// The page's entry carries this table: the fields' meanings are in docs/conduct.md, not here.
const findingSchema = z.object({
  rule: z.enum(RULE_NAMES),
  message: z.string(),
  operationId: z.string(),
  requests: z.array(z.number().int()),
  spec: z.string(),
})

export const conductSchema = z.object({
  findings: z.array(findingSchema),
  coverage: z.array(
    z.object({
      operationId: z.string(),
      method: z.string(),
      path: z.string(),
      met: z.array(z.object({ status: z.number().int(), request: z.number().int() })),
      unmet: z.array(z.number().int()),
      scenarios: z.object({
        met: z.array(z.object({ name: z.string(), request: z.number().int() })),
        unmet: z.array(z.string()),
      }),
    }),
  ),
})

export const getConduct = defineRoute({
  id: 'sandboxGetConduct',
  method: 'GET',
  path: '/__sandbox/conduct',
  tag: 'sandbox control',
  auth: { kind: 'control' },
  summary:
    "The app's conduct in this world (docs/conduct.md): the spec's retry rules it broke, and the statuses and scenarios each operation it called met",
  query: z.strictObject({}),
  response: { schema: conductSchema },
  errors: { 409: 'Conduct is off (--no-conduct): nothing was judged' },
  async handler(ctx) {
    const conduct = ctx.sandbox.conduct
    if (!conduct) throw conflict('conduct: off in this sandbox (--no-conduct), nothing was judged')
    const { conductReport } = await import('./report.js')
    return ok(
      conductReport(
        conduct,
        ctx.app.routes,
        await ctx.app.openapi(),
        ctx.sandbox.shared.scenarios.list() as readonly ScenarioDefinition[],
      ),
    )
  },
})

export const conductRoutes = [getConduct]
