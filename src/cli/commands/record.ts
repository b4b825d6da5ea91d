import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import * as accounts from '../../../fixtures/accounts.js'
import type { RouteDef } from '../../core/app/route.js'
import { Checker } from '../../core/bridge/check.js'
import { driftWalk } from '../../core/bridge/drift.js'
import { Recorder } from '../../core/bridge/record.js'
import type { CollectionName } from '../../core/store/fixtures.js'
import { createSandboxApp } from '../../sandbox-app.js'
import { bridgeFlags, upstreamFromFlags } from './bridge-flags.js'
import { RECORD_REPORT } from '../serve/fixtures-dir.js'

const USAGE = [
  'Usage: fleet-sandbox record --upstream URL --upstream-token T --out DIR [--redact-emails]',
  '       fleet-sandbox record --har FILE --out DIR [--redact-emails]',
  '',
  "  writes a real backend's records (its GET list answers, or a HAR's) as a --fixtures folder,",
  '  with record-report.json beside it (docs/bridge.md)',
  '  --redact-emails   replace every e-mail address',
  '  -h, --help        show this help',
].join('\n')

/**
 * `fleet-sandbox record`: the upstream's records (its GET list answers, from the drift walk or
 * a HAR a browser saved) as a `--fixtures` folder, with `record-report.json` beside it.
 */
export async function record(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const options = { ...bridgeFlags, har: { type: 'string' }, out: { type: 'string' }, 'redact-emails': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const
  let values: Record<string, string | string[] | boolean | undefined>
  try {
    values = parseArgs({ args: argv, options: options as never, strict: true, allowPositionals: false }).values as typeof values
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${USAGE}`)
  }
  const fail = (message: string): never => {
    throw new Error(`fleet-sandbox record: ${message}\n${USAGE}`)
  }
  if (values.help === true) return void console.log(USAGE)
  const out = (values.out as string | undefined) ?? fail('--out DIR is required')
  const har = values.har as string | undefined
  const upstream = har ? undefined : (upstreamFromFlags(values, env, fail) ?? fail('give --upstream URL (with --upstream-token) or --har FILE'))

  const app = createSandboxApp({ seed: 1, size: 'small' })
  const seeded = (await app.ready()).world.rows() as unknown as Record<CollectionName, Record<string, unknown>[]>
  const clientId = accounts.users.find((u) => u.email === 'admin@fleet.test')!.clientId
  const templates = Object.fromEntries(Object.entries(seeded).map(([name, rows]) => [name, rows.find((r) => r.clientId === clientId) ?? rows[0]]))
  const recorder = new Recorder({ clientId, templates, redactEmails: values['redact-emails'] === true })
  const lists = app.routes.filter((r) => r.method === 'GET' && r.lists && !r.path.includes(':'))

  if (har) {
    for (const { route, body } of harAnswers(har, lists)) recorder.add(route, body)
  } else {
    const report = await driftWalk(lists, new Checker(await app.openapi()), upstream!, fetch, (route, body) => recorder.add(route, body))
    if (!report.operations.some((o) => o.httpStatus !== null)) fail(`the upstream answered none of the requests (${report.operations.find((o) => o.reason)?.reason ?? 'nothing to walk'})`)
  }
  const { rows, report } = recorder.result()
  mkdirSync(out, { recursive: true })
  for (const [name, records] of Object.entries(rows)) writeFileSync(join(out, `${name}.json`), `${JSON.stringify(records, null, 2)}\n`)
  // The source is named, never a credential: a URL with one was refused above.
  writeFileSync(join(out, RECORD_REPORT), `${JSON.stringify({ source: har ?? upstream!.url, recordedAt: new Date().toISOString(), clientId, collections: report }, null, 2)}\n`)
  const written = Object.entries(rows).map(([name, r]) => `${name} (${r!.length})`).join(', ') || 'nothing'
  console.log(`recorded into ${out}: ${written}; what was left out or filled: ${join(out, RECORD_REPORT)}`)
}

interface HarEntry {
  request?: { method?: string; url?: string }
  response?: { status?: number; content?: { text?: string; encoding?: string; mimeType?: string } }
}

/** The GET answers with status 200 of a HAR 1.2 file whose path is a list route's. */
function harAnswers(file: string, lists: RouteDef[]): { route: RouteDef; body: unknown }[] {
  let har: { log?: { entries?: HarEntry[] } }
  try {
    har = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(`--har ${file}: must be a HAR 1.2 file (JSON) as a browser's devtools save it (${(error as Error).message})`)
  }
  if (!Array.isArray(har?.log?.entries)) throw new Error(`--har ${file}: must be a HAR 1.2 file: log.entries is missing`)
  const out: { route: RouteDef; body: unknown }[] = []
  for (const entry of har.log.entries) {
    if (entry.request?.method !== 'GET' || entry.response?.status !== 200 || !entry.request.url) continue
    const path = new URL(entry.request.url).pathname.replace(/\/$/, '').toLowerCase()
    const route = lists.find((r) => r.path.toLowerCase() === path)
    const content = entry.response.content
    if (!route || !content?.text) continue
    try {
      out.push({ route, body: JSON.parse(content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text) })
    } catch { /* not JSON: nothing to record */ }
  }
  return out
}
