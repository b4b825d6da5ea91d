import * as z from 'zod'
import { DURATION_TEXT, checkInstant, parseDuration } from '../clock/clock.js'
import { badRequest, notFound, ok } from '../http/reply.js'
import { defineRoute } from '../route/route.js'
import { emailAddress } from '../http/schemas.js'
import type { SandboxRegistry } from '../sandbox/sandbox.js'
import { SANDBOX_ID_PATTERN, SANDBOX_ID_RULE } from '../sandbox/sandbox-id.js'
import { getRepro, postRepro } from '../time-travel/repro-routes.js'
import { REWIND_ERRORS, rewindWorld, snapshotAtQuery, snapshotQuery } from '../time-travel/rewind-routes.js'

const control = { kind: 'control' } as const
const tag = 'sandbox control'

const clockReply = (ctx: { sandbox: { clock: { toJSON(): object } } }) => ok(ctx.sandbox.clock.toJSON())

export const health = defineRoute({
  id: 'sandboxHealth',
  method: 'GET',
  path: '/__sandbox/health',
  tag,
  auth: control,
  summary: 'Liveness, seed, sandbox clock and active scenarios',
  response: {
    schema: z.object({
      status: z.literal('ok'),
      seed: z.number(),
      now: z.string(),
      scenarios: z.array(z.string()),
      sandbox: z.string(),
    }),
  },
  handler: (ctx) =>
    ok({
      status: 'ok',
      seed: ctx.sandbox.seed,
      now: ctx.sandbox.iso(),
      scenarios: ctx.sandbox.inForce().map((a) => a.name),
      sandbox: ctx.sandbox.id,
    }),
})

export const listScenarios = defineRoute({
  id: 'sandboxListScenarios',
  method: 'GET',
  path: '/__sandbox/scenarios',
  tag,
  auth: control,
  summary:
    'Every scenario: name, description, options (defaults and the active values), whether active now; every entry with its window (schedule)',
  // The options' JSON Schemas are written on first use (zod's JSON Schema writer: the browser entry's budget).
  handler: async (ctx) => ok((await import('./scenario-list.js')).scenarioList(ctx.sandbox)),
})

/**
 * An entry of `active` as the registry reads it (scenarios/registry.ts `parse`): the document
 * fills in the known names (`x-sandbox-scenario-name`) and, for the object form, one alternative
 * per scenario with its own options' schema (`x-sandbox-scenario-entry`, openapi.ts).
 */
const SCENARIO_ENTRY = {
  description:
    "A scenario name, or {name, options?, from?, until?}: options are checked by the scenario's own schema (GET /__sandbox/scenarios), from and until are ISO date-times or +N with s, m, h or d",
  anyOf: [
    { type: 'string', 'x-sandbox-scenario-name': true },
    {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', 'x-sandbox-scenario-name': true } },
      additionalProperties: false,
      'x-sandbox-scenario-entry': true,
    },
  ],
}

export const setScenarios = defineRoute({
  id: 'sandboxSetScenarios',
  method: 'PUT',
  path: '/__sandbox/scenarios',
  tag,
  auth: control,
  summary:
    'Replace the active scenarios: names or {name, options, from?, until?} (a window on the sandbox clock: ISO or "+2m"); [] is healthy',
  body: z.strictObject({
    active: z.array(z.unknown().meta(SCENARIO_ENTRY), {
      error: 'must be an array of scenario names or {name, options}',
    }),
  }),
  handler(ctx) {
    const list = ctx.body.active.map((a, i) => ctx.sandbox.shared.scenarios.parse(a, `active.${i}`))
    ctx.sandbox.setScenarios(list)
    return listScenarios.handler(ctx as never)
  },
})

export const reset = defineRoute({
  id: 'sandboxReset',
  method: 'POST',
  path: '/__sandbox/reset',
  tag,
  auth: control,
  summary: 'Fresh data (same seed unless given); clears sessions, scenarios, clock, journal and outbox',
  body: z
    .strictObject({
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 31 - 1)
        .optional(),
    })
    .optional(),
  async handler(ctx) {
    await ctx.sandbox.reset(ctx.body?.seed ?? ctx.sandbox.seed)
    return health.handler(ctx as never)
  },
})

export const getClock = defineRoute({
  id: 'sandboxGetClock',
  method: 'GET',
  path: '/__sandbox/clock',
  tag,
  auth: control,
  summary: 'The sandbox clock',
  response: { schema: z.object({ now: z.string(), frozen: z.boolean() }) },
  handler: clockReply,
})

export const moveClock = defineRoute({
  id: 'sandboxMoveClock',
  method: 'POST',
  path: '/__sandbox/clock',
  tag,
  auth: control,
  summary: 'Advance (`{advanceBy: "31d"}` or seconds), set (`{set: ISO}`) or freeze (`{freeze: true}`) the clock',
  body: z
    .strictObject({
      // What parseDuration takes, stated: a handler's 400 for anything else names the rule.
      advanceBy: z
        .union(
          [
            z.number().min(0, 'must be a non-negative number of seconds'),
            z.string().regex(DURATION_TEXT, {
              error: (issue) =>
                `${JSON.stringify(issue.input)} is not a duration; use numbers with ms, s, m, h, d or w, such as "31d"`,
            }),
          ],
          {
            error: 'must be seconds or a duration such as "31d", "2h", "90s"',
          },
        )
        .optional(),
      set: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional(),
      freeze: z.boolean().optional(),
    })
    .refine(
      (b) => b.advanceBy !== undefined || b.set !== undefined || b.freeze !== undefined,
      'give advanceBy, set or freeze',
    )
    .refine((b) => b.advanceBy === undefined || b.set === undefined, {
      message: 'give either advanceBy or set, not both',
      path: ['advanceBy'],
    })
    // The refinements as the document states them.
    // (Not `not: {required}`: generic testers read any `required` as the body's own.)
    .meta({ minProperties: 1, dependentSchemas: { advanceBy: { properties: { set: false } } } }),
  errors: {
    400: "Invalid payload (the message names the field): give advanceBy, set or freeze; give either advanceBy or set, not both; advanceBy or set out of the clock's range",
  },
  handler(ctx) {
    const { advanceBy, set, freeze } = ctx.body
    const clock = ctx.sandbox.clock
    // Checked before anything moves, so a refused request leaves the clock as it was.
    const target =
      set !== undefined
        ? checkInstant(Date.parse(set), 'set')
        : advanceBy !== undefined
          ? checkInstant(clock.now() + parseDuration(advanceBy), 'advanceBy')
          : undefined
    if (freeze !== undefined) clock.freeze(freeze)
    if (target !== undefined) clock.set(target)
    ctx.sandbox.changed('clock')
    return clockReply(ctx)
  },
})

export const listRequests = defineRoute({
  id: 'sandboxListRequests',
  method: 'GET',
  path: '/__sandbox/requests',
  tag,
  auth: control,
  summary: 'Request journal (bounded ring), newest last',
  handler: (ctx) => ok({ requests: ctx.sandbox.journal.list() }),
})

export const clearRequests = defineRoute({
  id: 'sandboxClearRequests',
  method: 'DELETE',
  path: '/__sandbox/requests',
  tag,
  auth: control,
  summary: 'Empty the request journal',
  // The conduct judged the requests cleared: it goes with them (its findings name them).
  handler: (ctx) => (
    ctx.sandbox.journal.clear(),
    ctx.sandbox.conduct?.clear(),
    ctx.sandbox.changed('requests-cleared'),
    ok({ requests: [] })
  ),
})

export const listOutbox = defineRoute({
  id: 'sandboxListOutbox',
  method: 'GET',
  path: '/__sandbox/outbox',
  tag,
  auth: control,
  summary: 'External effects: e-mails, messages, reset tokens, magic links, uploads to the tax authority',
  query: z.object({
    kind: z.enum(['email', 'message', 'password-reset', 'magic-link', 'sii-upload']).optional(),
    to: z.string().optional(),
  }),
  handler(ctx) {
    const { kind, to } = ctx.query
    return ok({ outbox: ctx.sandbox.outbox.list().filter((e) => (!kind || e.kind === kind) && (!to || e.to === to)) })
  },
})

export const clearOutbox = defineRoute({
  id: 'sandboxClearOutbox',
  method: 'DELETE',
  path: '/__sandbox/outbox',
  tag,
  auth: control,
  summary: 'Empty the outbox',
  handler: (ctx) => {
    // Journaled with what it removed, so a rewind (and the view of a moment) reaches back across it.
    if (ctx.sandbox.config.changes !== false)
      for (const entry of ctx.sandbox.outbox.list()) ctx.sandbox.changes.outbox(entry, true)
    ctx.sandbox.outbox.clear()
    ctx.sandbox.changed('outbox-cleared')
    return ok({ outbox: [] })
  },
})

export const getSnapshot = defineRoute({
  id: 'sandboxGetSnapshot',
  method: 'GET',
  path: '/__sandbox/snapshot',
  tag,
  auth: control,
  summary: 'The whole state as one JSON object keyed by collection name (`?before=id`: as it was then)',
  query: snapshotQuery,
  errors: REWIND_ERRORS,
  handler: async (ctx) => ok((await snapshotAtQuery(ctx)) ?? ctx.sandbox.snapshot()),
})

export const putSnapshot = defineRoute<Record<string, string>, Record<string, unknown>, unknown>({
  id: 'sandboxPutSnapshot',
  method: 'PUT',
  path: '/__sandbox/snapshot',
  tag,
  auth: control,
  summary:
    'Restore a snapshot taken with GET (up to 256 MB); a malformed one is a 400 naming the field, one beyond a bound a 413 naming the collection; either changes nothing',
  // Read (and parsed) before the sandbox's write lock: a slow upload holds up no other write.
  body: 'snapshot',
  bodyFrom: 'sandboxGetSnapshot',
  errors: {
    400: 'Not a snapshot taken with GET /__sandbox/snapshot (the link from that operation): the message names the field, such as version: must be one of 1',
  },
  async handler(ctx) {
    await ctx.sandbox.restore(ctx.body)
    return health.handler(ctx as never)
  },
})

/** Extension: the isolated sandboxes alive in this process (not the default one). */
export const listSandboxes = defineRoute({
  id: 'sandboxListSandboxes',
  method: 'GET',
  path: '/__sandbox/sandboxes',
  tag,
  auth: control,
  summary:
    'Isolated sandboxes alive (x-sandbox-id), least recently used first; the idle time and the cap (--max-sandboxes) that evict them, and the evictions so far',
  handler: async (ctx) => ok(await sandboxesReply(ctx.sandbox.registry)),
})

const sandboxesReply = async (registry: SandboxRegistry) => ({
  idleMs: registry.idleMs,
  maxSandboxes: registry.maxSandboxes,
  sandboxes: await registry.list(),
  evicted: await registry.evicted(),
})

/** Extension: an e2e worker drops its sandbox when done instead of waiting for idle eviction. */
export const dropSandbox = defineRoute({
  id: 'sandboxDropSandbox',
  method: 'DELETE',
  path: '/__sandbox/sandboxes/:id',
  tag,
  auth: control,
  summary: 'Drop an isolated sandbox and its state; the next request with its id starts fresh',
  params: z.object({
    id: z.string().regex(SANDBOX_ID_PATTERN, SANDBOX_ID_RULE),
  }),
  async handler(ctx) {
    const { id } = ctx.params
    if (id === 'default') throw badRequest('id: the default sandbox cannot be dropped; use POST /__sandbox/reset')
    if (!(await ctx.sandbox.registry.drop(id))) throw notFound(`id: no isolated sandbox ${id}`)
    return ok(await sandboxesReply(ctx.sandbox.registry))
  },
})

export const controlRoutes = [
  health,
  listScenarios,
  setScenarios,
  reset,
  getClock,
  moveClock,
  listRequests,
  clearRequests,
  listOutbox,
  clearOutbox,
  getSnapshot,
  putSnapshot,
  listSandboxes,
  dropSandbox,
  rewindWorld,
  getRepro,
  postRepro,
]
