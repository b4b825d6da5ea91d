import type { SandboxApp } from '../app/app.js'
import { findingOf } from '../conduct/messages.js'
import { type ConductReport, conductReport } from '../conduct/report.js'
import type { Finding } from '../conduct/rules.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import { type Send, control } from './client.js'

// The entries' `conduct` option (docs/conduct.md): `fleet-sandbox/node` judges its worlds at each
// `reset()`, Playwright's fixture each test's world after the test. Written once for both.

/** What a test's conduct does to it: fail it on a finding, warn, or not look (the default). */
export type ConductOption = 'fail' | 'warn' | 'off'

/** The `conduct` option checked (`off` when not given); a wrong one throws naming it, `who` (the entry) first. */
export function conductOption(value: unknown, who: string): ConductOption {
  if (value === undefined) return 'off'
  if (value === 'fail' || value === 'warn' || value === 'off') return value
  throw new Error(`${who}: conduct: must be 'fail', 'warn' or 'off' (got ${JSON.stringify(value)})`)
}

/** A world's conduct report (docs/conduct.md) in process, as `GET /__sandbox/conduct` answers it. */
export async function reportOf(app: SandboxApp, world: Sandbox): Promise<ConductReport> {
  if (!world.conduct) return { findings: [], coverage: [] }
  return conductReport(world.conduct, app.routes, await app.openapi(), app.scenarios.list())
}

/** A world's conduct report over the control API (`send` names the world). */
export const readConduct = (send: Send, who: string) => control<ConductReport>(send, who, 'GET', '/conduct')

/**
 * The findings of some worlds as the text a test fails or warns with, one line each (`where`
 * names its world when there are several); none when every world is clean.
 */
export function findingsText(worlds: { where?: string; findings: Finding[] }[], place = ''): string | undefined {
  const lines = worlds.flatMap(({ where, findings }) =>
    findings.map(
      (f) => `  ${where ? `${where}: ` : ''}${f.rule} (${f.spec}), requests ${f.requests.join(', ')}: ${f.message}`,
    ),
  )
  if (!lines.length) return undefined
  return `the app broke the spec's retry rules${place} (docs/conduct.md):\n${lines.join('\n')}`
}

/** The findings of the default world and of every `x-sandbox-id` world alive, in process. */
export async function worldsFindings(app: SandboxApp, main: Sandbox): Promise<string | undefined> {
  const worlds = [main, ...(await Promise.all(app.sandboxes.ids().map((id) => app.sandboxes.get(id))))]
  return findingsText(
    worlds.map((world) => ({
      where: world === main ? 'default world' : world.id,
      findings: (world.conduct?.findings ?? []).map(findingOf),
    })),
  )
}
