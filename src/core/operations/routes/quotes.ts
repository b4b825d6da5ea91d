import * as z from 'zod'
import { notFound, success } from '../../http/reply.js'
import { quoteAiSchema, quoteSchema } from '../model.js'
import { assumed } from '../../http/assumed.js'
import { defineRoute } from '../../route/route.js'
import { byTime } from '../../clock/clock.js'
import { clientOf, clientRows } from '../../http/tenant.js'
import { successEnvelope } from '../../http/schemas.js'

const tag = 'quotes'
const read = { kind: 'user', permission: 'quotes:read' } as const

const quoteOut = quoteSchema.omit({ clientId: true, ai: true }).extend({ hasAiContent: z.boolean() })
const aiOut = assumed(
  quoteAiSchema.extend({ quoteId: z.string(), number: z.string() }),
  'AI content fields are not shown by the spec',
)

export const listQuotes = defineRoute({
  id: 'listQuotes',
  method: 'GET',
  path: '/api/quotes',
  lists: 'quotes',
  tag,
  auth: read,
  assumed: true,
  summary: "The client's quotes, newest first; the AI content is read one quote at a time",
  response: { schema: successEnvelope(z.array(quoteOut)) },
  handler(ctx) {
    const rows = clientRows(ctx, ctx.sandbox.world.tables.quotes)
    rows.sort((a, b) => byTime(b.createdAt, a.createdAt))
    return success(rows.map(({ clientId: _, ai, ...q }) => ({ ...q, hasAiContent: ai !== null })))
  },
})

export const getQuoteAi = defineRoute({
  id: 'getQuoteAiContent',
  method: 'GET',
  path: '/api/quotes/ai/:quoteId',
  idOf: 'quotes',
  tag,
  auth: read,
  summary: 'The AI-generated content of a quote: text sections, model name and generation time',
  params: z.object({ quoteId: z.string().min(1).max(128) }),
  response: { schema: successEnvelope(aiOut) },
  errors: { 404: 'Unknown quote, or a quote with no AI-generated content yet' },
  handler(ctx) {
    const { quoteId } = ctx.params
    const quote = ctx.sandbox.world.tables.quotes.get(quoteId)
    if (!quote || quote.clientId !== clientOf(ctx)) throw notFound(`quoteId: no quote with id ${quoteId}`)
    if (!quote.ai) throw notFound(`quoteId: quote ${quote.number} has no AI-generated content yet`)
    return success({ quoteId: quote.id, number: quote.number, ...quote.ai })
  },
})

export const quotesRoutes = [listQuotes, getQuoteAi]
