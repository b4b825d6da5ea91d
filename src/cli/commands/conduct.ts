import { parseArgs } from 'node:util'
import type { ConductReport } from '../../core/conduct/report.js'

const USAGE = [
  'Usage: fleet-sandbox conduct --url URL [--sandbox ID] [--fail-on findings|unmet] [--json]',
  '',
  "  prints the app's conduct in a running sandbox's world: the spec's retry rules it broke, and",
  '  the statuses and scenarios each operation it called met (docs/conduct.md)',
  '  exit 1 when something is found (or on a bad flag or a server that does not answer), 0 otherwise',
  '  --url URL             the running sandbox (e.g. http://127.0.0.1:4010)',
  '  --sandbox ID          the world an x-sandbox-id names (default: the default world)',
  '  --fail-on findings    exit 1 on a finding (the default)',
  '  --fail-on unmet       exit 1 on a finding, or on a status the document lists that was never met',
  '  --json                print the report as JSON instead of a table',
  "  --control-token T     the sandbox's --control-token (or SANDBOX_CONTROL_TOKEN)",
  '  -h, --help            show this help',
].join('\n')

/** How long the sandbox may take to answer: a CI gate must not hang on a server that never does. */
export const CONDUCT_TIMEOUT_MS = 10_000

/** `fleet-sandbox conduct`: a running sandbox's conduct report, as a table and an exit code for CI. */
export async function conduct(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const options = {
    url: { type: 'string' },
    sandbox: { type: 'string' },
    'fail-on': { type: 'string' },
    json: { type: 'boolean' },
    'control-token': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const
  const refuse = (message: string): never => {
    throw new Error(`fleet-sandbox conduct: ${message}`)
  }
  let values: ReturnType<typeof parseArgs<{ options: typeof options; strict: true }>>['values']
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values
  } catch (error) {
    return refuse(`${(error as Error).message}\n${USAGE}`)
  }
  if (values.help) return void console.log(USAGE)
  if (!values.url) return refuse(`give --url URL\n${USAGE}`)
  const failOn = values['fail-on'] ?? 'findings'
  if (failOn !== 'findings' && failOn !== 'unmet') return refuse(`--fail-on: must be findings or unmet (got ${failOn})`)
  let base: URL
  try {
    base = new URL(values.url)
  } catch {
    return refuse(`--url: must be a URL such as http://127.0.0.1:4010 (got ${values.url})`)
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    return refuse(`--url: must be an http or https URL (got ${values.url})`)
  const headers: Record<string, string> = {}
  const token = values['control-token'] ?? env.SANDBOX_CONTROL_TOKEN
  if (token) headers['x-sandbox-control-token'] = token
  if (values.sandbox !== undefined) headers['x-sandbox-id'] = values.sandbox
  const url = new URL('__sandbox/conduct', base.href.endsWith('/') ? base : `${base.href}/`)
  let res: Response
  let text: string
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(CONDUCT_TIMEOUT_MS) })
    text = await res.text()
  } catch (error) {
    const why =
      (error as Error).name === 'TimeoutError' ? `no answer within ${CONDUCT_TIMEOUT_MS / 1000} s` : causeOf(error)
    return refuse(`${base.origin} cannot be reached: ${why}`)
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return refuse(`${url.href} answered ${res.status} with no JSON: is it a fleet-sandbox?`)
  }
  // The sandbox's 4xx names the field and the rule: said as it is.
  if (!res.ok) return refuse(`${res.status} from /__sandbox/conduct: ${(body as { message?: string }).message ?? text}`)
  const report = body as ConductReport
  if (!Array.isArray(report.findings) || !Array.isArray(report.coverage))
    return refuse(`${url.href} did not answer a conduct report: is it a fleet-sandbox of this version?`)
  console.log(values.json ? JSON.stringify(report, null, 2) : table(report, values.sandbox))
  const unmet = report.coverage.some((c) => c.unmet.length > 0)
  process.exitCode = report.findings.length > 0 || (failOn === 'unmet' && unmet) ? 1 : 0
}

const causeOf = (error: unknown) => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error as Error).message
}

/** The report as a person reads it: the findings, then one line per operation. */
export function table(report: ConductReport, sandbox?: string): string {
  const lines = [`conduct of the ${sandbox ? `world ${sandbox}` : 'default world'}`, '']
  if (report.findings.length === 0) lines.push('no finding')
  else {
    lines.push(`${report.findings.length} finding${report.findings.length === 1 ? '' : 's'}:`)
    for (const f of report.findings)
      lines.push(`  ${f.rule}  ${f.operationId}  requests ${f.requests.join(', ')}  (${f.spec})`, `    ${f.message}`)
  }
  lines.push('')
  if (report.coverage.length === 0) return [...lines, 'no operation called'].join('\n')
  const width = Math.max(9, ...report.coverage.map((c) => c.operationId.length))
  lines.push(`${'operation'.padEnd(width)}  met                 unmet               scenarios met / unmet`)
  for (const c of report.coverage) {
    const met = c.met.map((m) => m.status).join(' ') || '-'
    const unmet = c.unmet.join(' ') || '-'
    const scenarios = `${c.scenarios.met.map((s) => s.name).join(' ') || '-'} / ${c.scenarios.unmet.join(' ') || '-'}`
    lines.push(`${c.operationId.padEnd(width)}  ${met.padEnd(18)}  ${unmet.padEnd(18)}  ${scenarios}`)
  }
  return lines.join('\n')
}
