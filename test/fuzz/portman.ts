import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PORTMAN } from '../support/needs.js'

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>

/**
 * A run of Portman (a generic OpenAPI tester: it turns the served document into a Postman
 * collection with contract tests and fuzzed variations) and Newman (Postman's runner) against a
 * running sandbox, as a caller who holds `token` of kind `holds` (or none).
 *
 * What it checks, per request: Portman's own contract tests (a JSON body where one is sent), and
 * two written here from the document alone: the answer's status is one the operation lists (so no
 * 5xx it does not list), and each fuzzed variation (a required field left out, a number past its
 * bounds, a string past its lengths, in the body, the query and the headers) is refused: 400, or
 * 401 where the caller's token does not open the operation (auth is read first).
 */
export interface PortmanPass {
  url: string
  dir: string
  label: string
  /** The security schemes the token opens (none: no token). */
  holds: readonly string[]
  token?: string
  /** Only the operations this token opens by a scheme (the rest: the other passes). */
  onlyOpened?: boolean
}

export interface PortmanResult {
  requests: number
  variations: number
  assertions: number
  failures: string[]
  statuses: Record<number, number>
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

/** The operations of a document, with the method and path Portman names them by. */
function operations(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  )
}

/** An event stream never ends: no runner's request may wait on it (the document keeps it). */
const streams = (op: Json) => Object.values(op.responses ?? {}).some((r: any) => r.content?.['text/event-stream'])
const jsonAnswers = (op: Json) =>
  Object.entries(op.responses ?? {}).every(
    ([status, r]: [string, any]) => !/^2/.test(status) || r.content?.['application/json'],
  )

/** Whether the caller's token opens the operation: no security, an optional one, or a scheme it holds. */
function opens(op: Json, holds: readonly string[]): boolean {
  const security = (op.security ?? []) as Json[]
  if (security.length === 0) return true
  return security.some((s) => Object.keys(s).length === 0 || Object.keys(s).some((k) => holds.includes(k)))
}

const openedByScheme = (op: Json, holds: readonly string[]) =>
  ((op.security ?? []) as Json[]).some((s) => Object.keys(s).some((k) => holds.includes(k)))

export async function portmanPass(doc: Json, pass: PortmanPass): Promise<PortmanResult> {
  const dir = join(pass.dir, pass.label)
  mkdirSync(dir, { recursive: true })
  const served = structuredClone(doc)
  for (const { method, path, op } of operations(served))
    if (streams(op) || (pass.onlyOpened && !openedByScheme(op, pass.holds))) delete served.paths[path][method]
  for (const [path, item] of Object.entries(served.paths as Json))
    if (!METHODS.some((m) => item[m])) delete served.paths[path]
  const ops = operations(served)
  const name = ({ method, path }: { method: string; path: string }) => `${method.toUpperCase()}::${path}`
  const fuzzing = {
    requiredFields: { enabled: true },
    minimumNumberFields: { enabled: true },
    maximumNumberFields: { enabled: true },
    minLengthFields: { enabled: true },
    maxLengthFields: { enabled: true },
  }
  const config = {
    version: 1.0,
    tests: {
      contractTests: [
        {
          openApiOperation: '*::/*',
          excludeForOperations: ops.filter((o) => !jsonAnswers(o.op)).map(name),
          jsonBody: { enabled: true },
        },
      ],
      extendTests: ops.map((o) => ({
        openApiOperation: name(o),
        tests: [statusListed(o.op)],
      })),
      variationTests: ops.map((o) => ({
        openApiOperation: name(o),
        variations: [
          {
            name: 'fuzz',
            fuzzing: [{ requestBody: [fuzzing], requestQueryParams: [fuzzing], requestHeaders: [fuzzing] }],
            tests: { extendTests: [{ tests: [refused(opens(o.op, pass.holds) ? 400 : 401)] }] },
          },
        ],
      })),
    },
    globals: { stripResponseExamples: true },
  }
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(served))
  writeFileSync(join(dir, 'portman-config.json'), JSON.stringify(config))
  const bin = resolve(PORTMAN, 'node_modules/.bin')
  const portman = ['-l', 'openapi.json', '-b', pass.url, '-c', 'portman-config.json', '-o', 'collection.json']
  const made = await run(join(bin, 'portman'), [...portman, '--runNewman', 'false'], dir)
  if (made.status !== 0) throw new Error(`portman failed: ${made.out}`)
  const env = ['--env-var', `bearerToken=${pass.token ?? ''}`]
  const report = ['--reporters', 'json', '--reporter-json-export', 'newman.json', '--timeout-request', '15000']
  const ran = await run(join(bin, 'newman'), ['run', 'collection.json', ...env, ...report], dir)
  let newman: Json
  try {
    newman = JSON.parse(readFileSync(join(dir, 'newman.json'), 'utf8')).run
  } catch {
    throw new Error(`newman wrote no report: ${ran.out}`)
  }
  const statuses: Record<number, number> = {}
  for (const e of newman.executions) if (e.response) statuses[e.response.code] = (statuses[e.response.code] ?? 0) + 1
  const failures = newman.failures.map((f: Json) => {
    const e = newman.executions.find((x: Json) => x.item.id === f.source?.id || x.item.name === f.source?.name)
    const code = e?.response?.code ?? 'no answer'
    const body = e?.response?.stream?.data ? Buffer.from(e.response.stream.data).toString().slice(0, 200) : ''
    // What was sent, and what came just before: the examples Portman fills in are random each run.
    const i = newman.executions.indexOf(e)
    const sent = `${e?.request?.method ?? ''} ${JSON.stringify(e?.request?.header ?? []).slice(0, 300)} ${String(e?.request?.body?.raw ?? '').slice(0, 200)}`
    const before = i > 0 ? `${newman.executions[i - 1].item.name} → ${newman.executions[i - 1].response?.code}` : 'none'
    return `${pass.label}: ${f.source?.name}: ${f.error?.test ?? ''} ${f.error?.message ?? ''} (answered ${code} ${body}; sent ${sent}; before it ${before})`
  })
  return {
    requests: newman.stats.requests.total,
    variations: newman.executions.filter((e: Json) => /\[fuzz\]/.test(e.item.name)).length,
    assertions: newman.stats.assertions.total,
    failures,
    statuses,
  }
}

/**
 * A child process, awaited: never spawnSync, since the sandbox under test may answer from this
 * very process (its event loop must run while Newman waits on it).
 */
function run(bin: string, args: string[], cwd: string): Promise<{ status: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(bin, args, { cwd })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const timer = setTimeout(() => child.kill(), 600_000)
    child.on('close', (status) => (clearTimeout(timer), done({ status, out })))
  })
}

/** Newman's test: the status is one the operation lists. */
function statusListed(op: Json): string {
  const listed = Object.keys(op.responses ?? {})
  if (listed.includes('default')) return `pm.test('an answer (the document lists any status)', () => {})`
  return `pm.test('the status is one the document lists', () => pm.expect(${JSON.stringify(listed.map(Number))}).to.include(pm.response.code))`
}

/**
 * Newman's test: a fuzzed request is refused with `status`, in JSON. A bad `x-sandbox-id` is a
 * 400 whatever the token: the world is chosen first, and its sessions decide the token.
 */
function refused(status: number): string {
  return `const expected = /x-sandbox-id\\]$/.test(pm.info.requestName) ? 400 : ${status}
pm.test('a request outside the document is refused with ' + expected, () => { pm.expect(pm.response.code).to.equal(expected); pm.response.to.be.json })`
}
