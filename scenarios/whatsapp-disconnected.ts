import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'

/** Reshapes the WhatsApp Business status: the account exists but is not connected. */
export default defineScenario({
  name: 'whatsapp-disconnected',
  description: 'the WhatsApp Business status says not connected',
  advice:
    'Show that WhatsApp is not connected where messages are composed, disable WhatsApp sending with a reason, and point admins to reconnecting it',
  appliesTo: (route) => route.id === 'getWhatsappStatus',
  options: z.strictObject({}),
  after(ctx, reply) {
    if (ctx.route.id !== 'getWhatsappStatus' || reply.status !== 200) return reply
    ctx.fault('whatsapp-disconnected')
    return { ...reply, body: { ...(reply.body as object), isConnected: false } }
  },
})
