import * as z from 'zod'
import { findingSchema } from '../bridge/routes.js'
import { defineRoute } from '../route/route.js'
import { notFound, ok } from '../http/reply.js'
import { paginate, paginationSchema } from '../http/pagination.js'
import { integer } from '../http/schemas.js'
import { REWIND_ERRORS, changesSchema } from '../time-travel/rewind-routes.js'
import { collectionAt } from '../time-travel/rewind.js'

/** docs/contract.md "The inspector": the routes the control panel is built on, open to any client. */
const control = { kind: 'control' } as const
const tag = 'sandbox control'

/** Written into the HAR's `creator`; the package's version. */
export const SANDBOX_VERSION = '0.1.0'

const message = z.object({
  headers: z.record(z.string(), z.string()),
  body: z
    .string()
    .nullable()
    .describe(
      'The body as text; null when there was none, when the route refused the request before reading it, or for entries restored from a snapshot',
    ),
  truncated: z.boolean().describe('Whether the body was cut at 64 KB (65,536 bytes)'),
  size: z.number().int().describe('Bytes of the whole body'),
})

const journalEntry = z.object({
  id: z.number().int(),
  method: z.string(),
  path: z.string(),
  query: z.string(),
  status: z.number().int(),
  faults: z.array(z.string()),
  durationMs: z.number(),
  at: z.string(),
  drift: z.array(findingSchema).optional(),
  changes: changesSchema.optional(),
  // A tool call of the MCP server's request (docs/agents.md).
  via: z.literal('mcp').optional(),
  tool: z.string().optional(),
  // The conduct rules the request broke (docs/conduct.md).
  conduct: z.array(z.string()).optional(),
})

export const getRequest = defineRoute({
  id: 'sandboxGetRequest',
  method: 'GET',
  path: '/__sandbox/requests/:id',
  tag,
  auth: control,
  summary:
    'One journal entry with its request and response headers and bodies (bodies over 64 KB cut, with truncated: true)',
  params: z.object({
    id: z.coerce
      .number({ error: 'must be a journal entry id (a positive integer)' })
      .int('must be a journal entry id (a positive integer)')
      .positive('must be a journal entry id (a positive integer)'),
  }),
  response: { schema: journalEntry.extend({ url: z.string(), request: message, response: message }) },
  errors: { 404: 'No such entry in the journal (never recorded, or already out of the bounded ring)' },
  handler(ctx) {
    const entry = ctx.sandbox.journal.get(ctx.params.id)
    if (!entry)
      throw notFound(`id: no journal entry ${ctx.params.id} (the journal keeps the newest 1,000 entries and 8 MB)`)
    return ok(entry)
  },
})

export const getHar = defineRoute({
  id: 'sandboxRequestsHar',
  method: 'GET',
  path: '/__sandbox/requests.har',
  tag,
  auth: control,
  summary: "The journal as HAR 1.2 (log.entries oldest first, headers and bodies), to import in a browser's devtools",
  response: {
    description: 'HAR 1.2 document (JSON)',
    schema: z.object({
      log: z.object({
        version: z.literal('1.2'),
        creator: z.object({ name: z.string(), version: z.string() }),
        pages: z.array(z.unknown()),
        entries: z.array(z.record(z.string(), z.unknown())),
      }),
    }),
  },
  // The HAR writer loads on first use: a page that never exports one does not carry it.
  handler: async (ctx) =>
    ok((await import('./har.js')).toHar(ctx.sandbox.journal.details(), SANDBOX_VERSION), {
      'content-disposition': `attachment; filename="fleet-sandbox-${ctx.sandbox.id}.har"`,
    }),
})

export const events = defineRoute({
  id: 'sandboxEvents',
  method: 'GET',
  path: '/__sandbox/events',
  tag,
  auth: control,
  summary:
    'Server-Sent Events (text/event-stream) as things happen: `request` (a journal entry), `outbox` (an outbox entry), `state` (scenarios, clock, reset, restore or a cleared list changed)',
  response: {
    description:
      'A stream that stays open: `event: request|outbox|state`, `data:` one JSON object; comment lines keep it alive',
    mediaType: 'text/event-stream',
  },
  // Like the HAR writer, the stream's writer loads on first use (the browser entry's budget).
  handler: async (ctx) =>
    ok((await import('./event-stream.js')).eventStream(ctx.sandbox.events, ctx.request.signal), {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies (nginx) would otherwise hold events back.
      'x-accel-buffering': 'no',
    }),
})

export const listCollections = defineRoute({
  id: 'sandboxListCollections',
  method: 'GET',
  path: '/__sandbox/collections',
  tag,
  auth: control,
  summary: "Every collection of the sandbox's data with its record count",
  response: { schema: z.object({ collections: z.array(z.object({ name: z.string(), count: z.number().int() })) }) },
  // The collections' readers load on first use, as the HAR writer does (the browser entry's budget).
  handler: async (ctx) => ok({ collections: (await import('./collections.js')).collectionList(ctx.sandbox) }),
})

export const getCollection = defineRoute({
  id: 'sandboxGetCollection',
  method: 'GET',
  path: '/__sandbox/collections/:name',
  tag,
  auth: control,
  summary: "One page of a collection's records (as a snapshot holds them)",
  params: z.object({
    name: z
      .string()
      .regex(/^[A-Za-z]{1,64}$/, 'must be a collection name (letters only), as GET /__sandbox/collections lists'),
  }),
  query: z.object({
    page: integer(1).default(1),
    limit: integer(1, 100).default(20),
    id: z
      .string()
      .min(1, 'must not be empty')
      .max(128, 'must be at most 128 characters')
      .optional()
      .describe('Only the record with this id'),
    q: z
      .string()
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .optional()
      .describe('Only records whose JSON holds this text (any case)'),
    before: integer(1).optional().describe('As they were just before this journal entry'),
  }),
  response: { schema: z.object({ items: z.array(z.record(z.string(), z.unknown())), pagination: paginationSchema }) },
  errors: { ...REWIND_ERRORS, 404: 'No such collection or request' },
  async handler(ctx) {
    const { before } = ctx.query
    const then =
      before === undefined
        ? undefined
        : (rows: unknown[]) => collectionAt(ctx.sandbox, { before }, ctx.params.name, rows)
    const { rows, known } = (await import('./collections.js')).collectionRowsOf(
      ctx.sandbox,
      ctx.params.name,
      ctx.query,
      then,
    )
    if (!rows) throw notFound(`name: no collection ${ctx.params.name}; known: ${known.join(', ')}`)
    return ok(paginate(rows, ctx.query.page, ctx.query.limit))
  },
})

export const inspectorRoutes = [getHar, getRequest, events, listCollections, getCollection]
