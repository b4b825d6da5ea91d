import * as z from 'zod'
import { defineRoute } from '../route/route.js'
import { badRequest, ok } from '../http/reply.js'
import { integer } from '../http/schemas.js'
import { type Moment, reach, rewind, snapshotAt } from './rewind.js'

/** docs/contract.md "Rewind": back to the moment before or after a journaled request. */
const control = { kind: 'control' } as const
const tag = 'sandbox control'

const requestId = z
  .number({ error: 'must be a journal entry id (a positive integer)' })
  .int('must be a journal entry id (a positive integer)')
  .positive('must be a journal entry id (a positive integer)')

/** Exactly one of `before` and `after` (the rule the 400 names). */
function moment(given: { before?: number; after?: number }, where: string): Moment | undefined {
  if (given.before !== undefined && given.after !== undefined)
    throw badRequest(`${where}: give before or after, not both`)
  if (given.before !== undefined) return { before: given.before }
  if (given.after !== undefined) return { after: given.after }
  return undefined
}

/** The refusals of a rewind and of a view of the past (each changes nothing). */
export const REWIND_ERRORS = {
  400: 'Not one request id: give before or after, not both',
  404: 'No such request',
  409: "Past the journal's bound (names the oldest reachable request)",
}

/** One RFC 6902 step with the value it replaced or removed (`from`). */
export const changesSchema = z
  .object({
    patch: z.array(
      z.object({
        op: z.enum(['add', 'remove', 'replace']),
        path: z.string().describe('Over the snapshot, records keyed by id: /invoices/inv_1/status'),
        value: z.unknown().optional(),
        from: z.unknown().optional().describe('The value replaced or removed'),
      }),
    ),
    outbox: z.array(z.record(z.string(), z.unknown())).describe('Outbox entries produced'),
  })
  .describe('RFC 6902 patch of a write; absent for a read')

export const rewindWorld = defineRoute({
  id: 'sandboxRewind',
  method: 'POST',
  path: '/__sandbox/rewind',
  tag,
  auth: control,
  journaled: true,
  summary: 'Records, sessions, outbox and clock back to just before or after a journaled request; journaled',
  body: z.strictObject({ before: requestId.optional(), after: requestId.optional() }),
  response: {
    schema: z.object({
      rewound: z.object({ before: z.number().optional(), after: z.number().optional() }),
      undone: z.number().int(),
      now: z.string(),
    }),
  },
  errors: REWIND_ERRORS,
  async handler(ctx) {
    const at = moment(ctx.body, 'body')
    if (!at) throw badRequest('body: give before or after (a journal entry id)')
    // Writes only: a read in the range has nothing to undo.
    const undone = reach(ctx.sandbox, at).undo.filter((entry) => entry.changes?.patch.length).length
    await rewind(ctx.sandbox, at)
    return ok({ rewound: at, undone, now: ctx.sandbox.iso() })
  },
})

/** The query of `GET /__sandbox/snapshot`: the world as it was at a moment of the journal. */
export const snapshotQuery = z.object({ before: integer(1).optional(), after: integer(1).optional() })

/** The snapshot at `before`/`after`, or none asked. */
export async function snapshotAtQuery(ctx: { sandbox: import('../sandbox/sandbox.js').Sandbox; query: unknown }) {
  const at = moment(ctx.query as { before?: number; after?: number }, 'query')
  if (!at) return undefined
  return snapshotAt(ctx.sandbox, at)
}
