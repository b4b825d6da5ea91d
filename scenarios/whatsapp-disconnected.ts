import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'

/** A state scenario: the WhatsApp Business status route reads it through `ctx.scenario('whatsapp-disconnected')`. */
export default defineScenario({
  name: 'whatsapp-disconnected',
  description: 'the WhatsApp Business status says not connected',
  advice: 'Show that WhatsApp is not connected where messages are composed, disable WhatsApp sending with a reason, and point admins to reconnecting it',
  options: z.strictObject({}),
})
