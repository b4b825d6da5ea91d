import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'

/** A state scenario: list and count handlers read it through `ctx.scenario('empty')`. */
export default defineScenario({
  name: 'empty',
  description: 'the client has no data: empty lists, zero counts',
  advice: 'Show empty states that explain what would be here and how to add the first one, hide totals and pagers, and never show a spinner forever or an error for "no data"',
  options: z.strictObject({}),
})
