import * as z from 'zod'
import { conflict, notFound, ok, reply, success } from '../../http/reply.js'
import { messageSchema, threadSchema } from '../model.js'
import { assumed } from '../../http/assumed.js'
import { defineRoute, type RouteContext } from '../../route/route.js'
import { byTime } from '../../clock/clock.js'
import { clientOf, clientRows, publicRow, userOf } from '../../http/tenant.js'
import { successEnvelope } from '../../http/schemas.js'

const tag = 'omnichannel'
const read = { kind: 'user', permission: 'omnichannel:read' } as const
const threadOut = assumed(threadSchema.omit({ clientId: true }), 'Thread fields are not shown by the spec')
const messageOut = assumed(messageSchema.omit({ clientId: true }), 'Message fields are not shown by the spec')
const threadParams = z.object({ threadId: z.string().min(1).max(128) })

function threadOf(ctx: RouteContext<any, any, any>, id: string, field = 'threadId') {
  const row = ctx.sandbox.world.tables.threads.get(id)
  if (!row || row.clientId !== clientOf(ctx)) throw notFound(`${field}: no thread with id ${id}`)
  return row
}

export const getWhatsappStatus = defineRoute({
  id: 'getWhatsappStatus',
  method: 'GET',
  path: '/api/omnichannel/auth/whatsapp/status',
  tag,
  auth: read,
  summary: 'WhatsApp Business connection status (bare object)',
  response: {
    schema: z.object({
      isConnected: z.boolean(),
      phoneNumberId: z.string(),
      businessName: z.string(),
      about: z.string(),
      webhookUrl: z.string(),
      verifyToken: z.string(),
    }),
  },
  handler(ctx) {
    const clientId = clientOf(ctx)
    const row = ctx.sandbox.world.tables.whatsappStatus.all().find((s) => s.clientId === clientId)
    if (!row) throw notFound('whatsapp: the client has no WhatsApp Business account')
    const { id: _, clientId: __, ...status } = row
    return ok(status)
  },
})

export const listThreads = defineRoute({
  id: 'listThreads',
  method: 'GET',
  path: '/api/omnichannel/threads',
  lists: 'threads',
  tag,
  auth: read,
  assumed: true,
  summary: "The client's conversation threads, latest message first; optional `status` filter",
  query: z.object({ status: z.enum(['open', 'closed']).optional() }),
  response: { schema: successEnvelope(z.array(threadOut)) },
  handler(ctx) {
    const { status } = ctx.query
    const rows = clientRows(ctx, ctx.sandbox.world.tables.threads, (t) => !status || t.status === status)
    return success(rows.sort((a, b) => byTime(b.lastMessageAt, a.lastMessageAt)).map(publicRow))
  },
})

export const getThread = defineRoute({
  id: 'getThread',
  method: 'GET',
  path: '/api/omnichannel/threads/:threadId',
  idOf: 'threads',
  tag,
  auth: read,
  assumed: true,
  summary: 'One conversation thread: read it before replying (closed or reassigned threads refuse messages)',
  params: threadParams,
  response: { schema: successEnvelope(threadOut) },
  errors: { 404: 'Unknown thread' },
  handler: (ctx) => success(publicRow(threadOf(ctx, ctx.params.threadId))),
})

export const listThreadMessages = defineRoute({
  id: 'listThreadMessages',
  method: 'GET',
  path: '/api/omnichannel/threads/:threadId/messages',
  lists: 'messages',
  idOf: 'threads',
  tag,
  auth: read,
  assumed: true,
  summary: 'Messages of a thread, oldest first',
  params: threadParams,
  response: { schema: successEnvelope(z.array(messageOut)) },
  errors: { 404: 'Unknown thread' },
  handler(ctx) {
    const thread = threadOf(ctx, ctx.params.threadId)
    if (!ctx.visible('messages')) return success([])
    const rows = ctx.sandbox.world.tables.messages.by('threadId', thread.id)
    return success(rows.sort((a, b) => byTime(a.sentAt, b.sentAt)).map(publicRow))
  },
})

const sendBody = assumed(
  z.object({
    threadId: z.string().min(1, 'is required').max(128, 'must be at most 128 characters'),
    text: z.string().trim().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'),
  }),
  'Payload fields are not shown by the spec',
)

/** A message id in the style of the seeded ones (24 hex), sequential so runs repeat. */
const messageId = (ctx: RouteContext<any, any, any>) => 'f0f0f0f0' + ctx.sandbox.ids.take('').padStart(16, '0')

/**
 * Spec, omnichannel risks: replying on a closed or reassigned thread is a conflict (409), and
 * a blind retry duplicates the message, so the caller reads the thread before resending.
 */
export const sendMessage = defineRoute({
  id: 'sendOmnichannelMessage',
  method: 'POST',
  path: '/api/omnichannel/send',
  tag,
  auth: { kind: 'user', permission: 'omnichannel:send' },
  effect: true,
  summary: 'Send a message on a thread; it is appended to the thread and recorded in the outbox (kind `message`)',
  body: sendBody,
  response: { status: 201, schema: successEnvelope(messageOut), description: 'Message sent' },
  errors: { 403: 'No permission', 404: 'Unknown thread', 409: 'The thread is closed or assigned to another user' },
  async handler(ctx) {
    const { user } = userOf(ctx)
    const thread = threadOf(ctx, ctx.body.threadId)
    if (thread.status === 'closed')
      throw conflict(`threadId: thread ${thread.id} is closed; messages cannot be sent on it`)
    if (thread.assignedTo && thread.assignedTo !== user.id) {
      const owner = ctx.sandbox.world.tables.users.get(thread.assignedTo)
      throw conflict(`threadId: thread ${thread.id} is assigned to another user (${owner?.name ?? thread.assignedTo})`)
    }
    const { tables } = ctx.sandbox.world
    const at = ctx.sandbox.iso()
    const message = await tables.messages.insert({
      id: messageId(ctx),
      threadId: thread.id,
      clientId: thread.clientId,
      direction: 'outbound',
      text: ctx.body.text,
      authorId: user.id,
      sentAt: at,
    })
    await tables.threads.update(thread.id, (t) => void (t.lastMessageAt = at))
    // The outbox has no body field: the subject carries the text (cut at 120 characters).
    const subject = ctx.body.text.length > 120 ? `${ctx.body.text.slice(0, 119)}…` : ctx.body.text
    ctx.sandbox.outbox.add('message', at, {
      to: thread.channel === 'email' ? thread.contactEmail : thread.contactPhone,
      subject,
      ref: message.id,
    })
    return reply(201, { status: 'success', data: publicRow(message) })
  },
})

export const omnichannelRoutes = [getWhatsappStatus, listThreads, getThread, listThreadMessages, sendMessage]
