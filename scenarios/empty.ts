import * as z from 'zod'
import { defineScenario } from '../src/core/scenarios/define.js'

/** Data shaping: the caller's client has no records at all, whatever the collection. */
export default defineScenario({
  name: 'empty',
  description: 'the client has no data: empty lists, zero counts',
  advice:
    'Show empty states that explain what would be here and how to add the first one, hide totals and pagers, and never show a spinner forever or an error for "no data"',
  appliesTo: (route) => route.lists !== undefined,
  options: z.strictObject({}),
  hides: () => true,
})
