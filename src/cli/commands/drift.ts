import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { Checker } from '../../core/bridge/check.js'
import { type DriftReport, driftWalk, exitCode } from '../../core/bridge/drift.js'
import { createSandboxApp } from '../../apps/page-app.js'
import { bridgeFlags, upstreamFromFlags } from './bridge-flags.js'

const USAGE = [
  'Usage: fleet-sandbox drift --upstream URL --upstream-token T [--json] [--out FILE] [--strict]',
  '',
  '  walks every GET /api operation against a real backend (GET only) and says where it differs',
  '  from the sandbox; exit 0 no drift, 1 drift, 2 cannot run (docs/bridge.md)',
  '  --json        print the report as JSON instead of a table',
  '  --out FILE    also write the JSON report to FILE',
  '  --strict      walk only what the spec documents',
  '  -h, --help    show this help',
].join('\n')

/** A flag error or a missing upstream: the walk cannot run, which a CI gate must not read as a pass. */
class CannotRun extends Error {}

/**
 * `fleet-sandbox drift`: walks every GET operation of the sandbox against the upstream and says
 * where the upstream differs. Exit 0 when nothing drifts, 1 when something does, 2 when it cannot run.
 */
export async function drift(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const parsed = parse(argv, env)
    if (parsed.help) return void console.log(USAGE)
    const app = createSandboxApp({ seed: 1, size: 'small', strict: parsed.strict })
    const report = await driftWalk(app.routes, new Checker(await app.openapi()), parsed.upstream)
    if (parsed.out) writeFileSync(parsed.out, `${JSON.stringify(report, null, 2)}\n`)
    console.log(parsed.json ? JSON.stringify(report, null, 2) : table(report))
    const code = exitCode(report)
    if (code === 2 && !parsed.json)
      console.error('fleet-sandbox drift: the upstream answered none of the requests: nothing was checked')
    process.exitCode = code
  } catch (error) {
    // Any failure is 2, never 1: a CI gate reads 1 as "the backend drifts".
    console.error(
      error instanceof CannotRun
        ? `fleet-sandbox drift: ${error.message}\n${USAGE}`
        : `fleet-sandbox drift: the walk failed, nothing was checked: ${error instanceof Error ? error.message : String(error)}`,
    )
    process.exitCode = 2
  }
}

function parse(argv: string[], env: NodeJS.ProcessEnv) {
  const options = {
    ...bridgeFlags,
    json: { type: 'boolean' },
    out: { type: 'string' },
    strict: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const
  let values: Record<string, string | string[] | boolean | undefined>
  try {
    values = parseArgs({ args: argv, options: options as never, strict: true, allowPositionals: false })
      .values as typeof values
  } catch (error) {
    throw new CannotRun((error as Error).message)
  }
  const fail = (message: string): never => {
    throw new CannotRun(message)
  }
  if (values.help === true) return { help: true, upstream: { url: '' }, json: false, out: undefined, strict: false }
  const upstream = upstreamFromFlags(values, env, fail) ?? fail('--upstream URL is required (or SANDBOX_UPSTREAM)')
  return {
    help: false,
    upstream,
    json: values.json === true,
    out: values.out as string | undefined,
    strict: values.strict === true,
  }
}

/** The report as a person reads it: one line per operation, its findings by kind with their pointers. */
export function table(report: DriftReport): string {
  const width = Math.max(...report.operations.map((o) => o.operation.length), 9)
  const lines = [
    `drift of ${report.upstream} at ${report.checkedAt}`,
    '',
    `${'operation'.padEnd(width)}  status       http`,
  ]
  for (const op of report.operations) {
    lines.push(
      `${op.operation.padEnd(width)}  ${op.status.padEnd(11)}  ${op.httpStatus ?? '-'}${op.reason ? `  ${op.reason}` : ''}`,
    )
    const kinds = new Map<string, string[]>()
    for (const f of op.findings) {
      const detail = `${f.pointer || '(body)'}${f.expected !== undefined ? ` expected ${JSON.stringify(f.expected)}` : ''}${f.actual !== undefined ? ` got ${JSON.stringify(f.actual)}` : ''}`
      kinds.set(f.kind, [...(kinds.get(f.kind) ?? []), detail])
    }
    for (const [kind, details] of kinds)
      for (const d of details) lines.push(`${''.padEnd(width)}    ${kind.padEnd(10)} ${d}`)
  }
  const s = report.summary
  lines.push('', `${s.ok} ok, ${s.drift} drift, ${s.unreachable} unreachable, ${s.skipped} skipped`)
  return lines.join('\n')
}
