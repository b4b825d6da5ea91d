import * as z from 'zod'
import { defineScenario } from 'fleet-sandbox/storybook'

/** A scenario of the team's own (docs/your-own-answers.md): the API is down for maintenance. */
export const maintenanceWindow = defineScenario({
  name: 'maintenance-window',
  description: 'every API route answers 503 with a maintenance notice',
  advice: 'Show a maintenance banner, keep what is on screen, retry after the window',
  options: z.strictObject({ minutes: z.number().int().min(1).default(30) }),
  edge(ctx, o) {
    ctx.fault('maintenance-window')
    return { status: 503, body: { message: `maintenance for ${o.minutes} minutes` } }
  },
})

export const teamScenarios = [maintenanceWindow] as const
