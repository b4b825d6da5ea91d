import * as z from 'zod'
import { defineRoute } from '../route/route.js'
import { conflict, ok } from '../http/reply.js'

const control = { kind: 'control' } as const
const tag = 'sandbox control'

export const findingSchema = z.object({
  kind: z.enum(['status', 'media-type', 'missing', 'extra', 'type', 'enum', 'format']),
  pointer: z.string(),
  expected: z.unknown().optional(),
  actual: z.unknown().optional(),
})

export const driftReportSchema = z.object({
  upstream: z.string().nullable(),
  checkedAt: z.string().nullable(),
  operations: z.array(
    z.object({
      operation: z.string(),
      path: z.string(),
      status: z.enum(['ok', 'drift', 'unreachable', 'skipped']),
      httpStatus: z.number().int().nullable(),
      findings: z.array(findingSchema),
      reason: z.string().optional(),
    }),
  ),
  summary: z.object({
    ok: z.number().int(),
    drift: z.number().int(),
    unreachable: z.number().int(),
    skipped: z.number().int(),
  }),
})

export const getDrift = defineRoute({
  id: 'sandboxGetDrift',
  method: 'GET',
  path: '/__sandbox/drift',
  tag,
  auth: control,
  summary: "Where the upstream differs from this document, each operation's latest check (docs/bridge.md)",
  response: { schema: driftReportSchema },
  // Findings exist only once the bridge has run: loaded with it, not with every start.
  handler: async (ctx) =>
    ok((await import('./findings.js')).driftLog(ctx.sandbox).report(ctx.app.options.upstream?.url ?? null)),
})

export const runDrift = defineRoute({
  id: 'sandboxRunDrift',
  method: 'POST',
  path: '/__sandbox/drift',
  tag,
  auth: control,
  summary: 'Walk every GET /api operation against the upstream; answers the report',
  // The upstream is configuration: a body naming another host is refused, not followed.
  body: z.strictObject(
    {},
    {
      error: (issue) =>
        `${issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : 'must be {}'}: the upstream is set by configuration only`,
    },
  ),
  response: { schema: driftReportSchema },
  errors: { 409: 'The sandbox was started without --upstream' },
  async handler(ctx) {
    const bridge = await ctx.app.bridge()
    if (!bridge) throw conflict('upstream: none given (start with --upstream URL)')
    return ok(await bridge.walk(ctx.app.routes, ctx.sandbox))
  },
})

export const driftRoutes = [getDrift, runDrift]
