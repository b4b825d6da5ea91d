import type { SandboxApp } from '../../core/app/app.js'
import { type ConductReport, conductReport } from '../../core/conduct/report.js'
import type { Sandbox } from '../../core/sandbox/sandbox.js'
import { findingOf } from '../../core/conduct/messages.js'

/** What a suite does with the findings of a test's worlds, checked at `reset()`: fail the test, warn, or not look. */
export type ConductOption = 'fail' | 'warn' | 'off'

/** A world's conduct report (docs/conduct.md), as `GET /__sandbox/conduct` answers it. */
export async function reportOf(app: SandboxApp, world: Sandbox): Promise<ConductReport> {
  if (!world.conduct) return { findings: [], coverage: [] }
  return conductReport(world.conduct, app.routes, await app.openapi(), app.scenarios.list())
}

/** The findings of the default world and every `x-sandbox-id` world alive, as one text; none when clean. */
export async function findingsText(app: SandboxApp, main: Sandbox): Promise<string | undefined> {
  const worlds = [main, ...(await Promise.all(app.sandboxes.ids().map((id) => app.sandboxes.get(id))))]
  const lines: string[] = []
  for (const world of worlds) {
    for (const f of (world.conduct?.findings ?? []).map(findingOf))
      lines.push(
        `  ${world === main ? 'default world' : world.id}: ${f.rule} (${f.spec}), requests ${f.requests.join(', ')}: ${f.message}`,
      )
  }
  if (!lines.length) return undefined
  return `fleet-sandbox/node: the app broke the spec's retry rules (docs/conduct.md):\n${lines.join('\n')}`
}

export function checkOption(value: unknown): ConductOption {
  if (value === undefined) return 'off'
  if (value === 'fail' || value === 'warn' || value === 'off') return value
  throw new Error(`fleet-sandbox/node: conduct: must be 'fail', 'warn' or 'off' (got ${JSON.stringify(value)})`)
}
