import { mkdirSync, writeFileSync } from 'node:fs'
import { readInput } from './read-input.js'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import * as accounts from '../../../fixtures/accounts.js'
import type { RouteDef } from '../../core/route/route.js'
import { Checker } from '../../core/bridge/check.js'
import { driftWalk } from '../../core/bridge/drift.js'
import { Recorder } from '../../core/bridge/record.js'
import { createSandboxApp } from '../../apps/page-app.js'
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
  try {
    await recordInto(argv, env)
  } catch (error) {
    // A failure is 2, as drift's: nothing (or not all) was written.
    const message = error instanceof Error ? error.message : String(error)
    console.error(message.startsWith('fleet-sandbox record:') ? message : `fleet-sandbox record: ${message}`)
    process.exitCode = 2
  }
}

async function recordInto(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const options = {
    ...bridgeFlags,
    har: { type: 'string' },
    out: { type: 'string' },
    'redact-emails': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const
  let values: Record<string, string | string[] | boolean | undefined>
  try {
    values = parseArgs({ args: argv, options: options as never, strict: true, allowPositionals: false })
      .values as typeof values
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${USAGE}`)
  }
  const fail = (message: string): never => {
    throw new Error(`fleet-sandbox record: ${message}\n${USAGE}`)
  }
  if (values.help === true) return void console.log(USAGE)
  const out = (values.out as string | undefined) ?? fail('--out DIR is required')
  const har = values.har as string | undefined
  const upstream = har
    ? undefined
    : (upstreamFromFlags(values, env, fail) ?? fail('give --upstream URL (with --upstream-token) or --har FILE'))

  const app = createSandboxApp({ seed: 1, size: 'small' })
  const seeded: Record<string, readonly Record<string, unknown>[]> = (await app.ready()).world.rows()
  const clientId = accounts.users.find((u) => u.email === 'admin@fleet.test')!.clientId
  const templates = Object.fromEntries(
    Object.entries(seeded).map(([name, rows]) => [name, rows.find((r) => r.clientId === clientId) ?? rows[0]]),
  )
  const recorder = new Recorder({ clientId, templates, redactEmails: values['redact-emails'] === true })
  const lists = app.routes.filter((r) => r.method === 'GET' && r.lists && !r.path.includes(':'))

  if (har) {
    for (const { route, body } of harAnswers(har, lists)) recorder.add(route, body)
  } else {
    const report = await driftWalk(lists, new Checker(await app.openapi()), upstream!, fetch, (route, body) =>
      recorder.add(route, body),
    )
    if (!report.operations.some((o) => o.httpStatus !== null))
      fail(
        `the upstream answered none of the requests (${report.operations.find((o) => o.reason)?.reason ?? 'nothing to walk'})`,
      )
  }
  const { rows, report } = recorder.result()
  mkdirSync(out, { recursive: true })
  for (const [name, records] of Object.entries(rows))
    writeFileSync(join(out, `${name}.json`), `${JSON.stringify(records, null, 2)}\n`)
  // The source is named, never a credential: a URL with one was refused above.
  writeFileSync(
    join(out, RECORD_REPORT),
    `${JSON.stringify({ source: har ?? upstream!.url, recordedAt: new Date().toISOString(), clientId, collections: report }, null, 2)}\n`,
  )
  const written =
    Object.entries(rows)
      .map(([name, r]) => `${name} (${r!.length})`)
      .join(', ') || 'nothing'
  console.log(`recorded into ${out}: ${written}; what was left out or filled: ${join(out, RECORD_REPORT)}`)
}

/** A HAR a browser saves of a session is a few MB; past this it is not read. */
const HAR_MAX_BYTES = 256 * 1_048_576

interface HarEntry {
  response: { content?: { text?: string; encoding?: string; mimeType?: string } }
}

/** The GET answers with status 200 of a HAR 1.2 file whose path is a list route's. */
function harAnswers(file: string, lists: RouteDef[]): { route: RouteDef; body: unknown }[] {
  let har: { log?: { entries?: unknown[] } }
  try {
    har = JSON.parse(readInput(file, `--har ${file}`, HAR_MAX_BYTES))
  } catch (error) {
    if ((error as Error).message.startsWith(`--har ${file}: `)) throw error
    throw new Error(
      `--har ${file}: must be a HAR 1.2 file (JSON) as a browser's devtools save it (${(error as Error).message})`,
    )
  }
  if (!Array.isArray(har?.log?.entries))
    throw new Error(`--har ${file}: must be a HAR 1.2 file: log.entries is missing`)
  const out: { route: RouteDef; body: unknown }[] = []
  har.log.entries.forEach((entry, i) => {
    const { method, url, status, content } = harEntry(
      entry,
      (field, rule) => new Error(`--har ${file}: log.entries[${i}]${field}: ${rule}`),
    )
    if (method !== 'GET' || status !== 200) return
    const route = lists.find((r) => r.path.toLowerCase() === url.pathname.replace(/\/$/, '').toLowerCase())
    if (!route || !content?.text) return
    try {
      out.push({
        route,
        body: JSON.parse(
          content.encoding === 'base64' ? Buffer.from(content.text, 'base64').toString('utf8') : content.text,
        ),
      })
    } catch {
      /* not JSON: nothing to record */
    }
  })
  return out
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** One entry's fields the recorder reads, each checked: a bad one names the field and the rule. */
function harEntry(entry: unknown, bad: (field: string, rule: string) => Error) {
  if (!isObject(entry)) throw bad('', 'must be an object (a HAR entry: {request, response})')
  const { request, response } = entry
  if (!isObject(request)) throw bad('.request', 'must be an object ({method, url, ...})')
  if (typeof request.method !== 'string') throw bad('.request.method', 'must be a string')
  if (typeof request.url !== 'string' || !URL.canParse(request.url))
    throw bad('.request.url', `must be an absolute URL, got ${JSON.stringify(request.url)?.slice(0, 200)}`)
  if (!isObject(response)) throw bad('.response', 'must be an object ({status, content, ...})')
  if (typeof response.status !== 'number') throw bad('.response.status', 'must be a number')
  const content = response.content
  if (content !== undefined && !isObject(content))
    throw bad('.response.content', 'must be an object ({text, encoding?, mimeType})')
  if (content?.text !== undefined && typeof content.text !== 'string')
    throw bad('.response.content.text', 'must be a string')
  return {
    method: request.method,
    url: new URL(request.url),
    status: response.status,
    content: content as HarEntry['response']['content'],
  }
}
