import * as z from 'zod'
import { HttpError } from '../src/core/http/reply.js'
import { defineScenario } from '../src/core/scenarios/define.js'

/**
 * Every thread the caller may reply on counts as closed or reassigned: sending answers 409. An
 * unknown thread stays 404 (the handler answers it), so the check runs only for a real thread.
 */
export default defineScenario({
  name: 'thread-closed',
  description: 'omnichannel threads are closed or reassigned: sending answers 409',
  advice:
    'On 409 do not resend: reload the thread and its messages, show that it was closed or reassigned, disable the composer, and keep the unsent text so the user can copy it',
  appliesTo: (route) => route.id === 'sendOmnichannelMessage',
  options: z.strictObject({}),
  before(ctx) {
    if (ctx.route.id !== 'sendOmnichannelMessage') return undefined
    const threadId = (ctx.body as { threadId: string }).threadId
    const thread = ctx.sandbox.world.tables.threads.get(threadId)
    if (!thread || thread.clientId !== ctx.principal?.clientId) return undefined
    ctx.fault('thread-closed')
    throw new HttpError(409, `threadId: thread ${thread.id} was closed or reassigned; read the thread before sending`)
  },
})
