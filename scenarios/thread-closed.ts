import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'

/** A state scenario: the omnichannel routes read it through `ctx.scenario('thread-closed')`. */
export default defineScenario({
  name: 'thread-closed',
  description: 'omnichannel threads are closed or reassigned: sending answers 409',
  advice: 'On 409 do not resend: reload the thread and its messages, show that it was closed or reassigned, disable the composer, and keep the unsent text so the user can copy it',
  options: z.strictObject({}),
})
