import { appendFileSync, existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { CHROMIUM, chromiumAvailable } from '../browser/support/chromium.js'

/** Where suites note why they skipped; `skipped.ts` (the run's global setup) prints it at the end. */
export const SKIPPED_LOG = '.tmp/skipped/skipped.jsonl'

export interface Skip {
  file: string
  why: string
  run: string
}

/** The test file that called, from the stack: the note names the suite, not this helper. */
function caller(): string {
  const frames = new Error().stack?.split('\n') ?? []
  const frame = frames.find((line) => /[/\\]test[/\\].+\.test\.ts/.test(line)) ?? ''
  const path = /(?:file:\/\/)?([^\s()]+\.test\.ts)/.exec(frame)?.[1] ?? 'a suite'
  const at = path.replace(/\\/g, '/').lastIndexOf('/test/')
  return at >= 0 ? path.slice(at + 1) : path
}

function note(why: string, run: string): void {
  mkdirSync(dirname(SKIPPED_LOG), { recursive: true })
  appendFileSync(SKIPPED_LOG, `${JSON.stringify({ file: caller(), why, run } satisfies Skip)}\n`)
}

/**
 * True (skip) when a file of the build is missing: `describe.skipIf(unbuilt('dist/x.mjs'))`.
 * The skip is listed at the end of the run, so a plain `npx vitest` cannot pass it silently.
 */
export function unbuilt(...paths: string[]): boolean {
  const missing = paths.filter((path) => !existsSync(path))
  if (missing.length > 0) note(`needs the build (${missing.join(', ')} is missing)`, 'npm run build, then run it again')
  return missing.length > 0
}

/** True (skip) without Chromium (CI fails instead: chromiumAvailable). */
export function noChromium(): boolean {
  if (chromiumAvailable()) return false
  note(`needs Chromium at ${CHROMIUM}`, 'sudo apt-get install -y chromium, or set CHROMIUM_PATH')
  return true
}

/**
 * True (skip) when a dev dependency a recipe needs is not installed, as a fresh clone has it
 * before package.json lists it: `it.skipIf(missingPackage('@modelcontextprotocol/sdk', '...'))`.
 */
export function missingPackage(name: string, install: string): boolean {
  if (existsSync(`node_modules/${name}/package.json`)) return false
  note(`needs ${name} (not in node_modules)`, install)
  return true
}

/** Where `.ci/run`'s current-Node leg installs the MCP tools that need Node 22.19+ (the inspector's engines; the conformance suite uses fs.globSync). */
export const MCP_TOOLS = '.tmp/mcp-tools'
export const MCP_TOOLS_INSTALL = `npm install --prefix ${MCP_TOOLS} --no-save @modelcontextprotocol/inspector@2.12.0 @modelcontextprotocol/conformance@0.1.16`

/** True (skip) without the MCP Inspector and conformance suite: on Node before 22.19, or not installed in MCP_TOOLS. */
export function noMcpTools(): boolean {
  const [major, minor] = process.versions.node.split('.').map(Number)
  if (major < 22 || (major === 22 && minor < 19)) {
    note(
      `needs Node 22.19+ for the MCP Inspector and conformance suite (this is ${process.versions.node})`,
      `on Node 22.19+ (CI's second leg): ${MCP_TOOLS_INSTALL}`,
    )
    return true
  }
  const missing = ['inspector', 'conformance'].filter((bin) => !existsSync(`${MCP_TOOLS}/node_modules/.bin/${bin}`))
  if (missing.length) note(`needs the MCP tools in ${MCP_TOOLS} (${missing.join(', ')} missing)`, MCP_TOOLS_INSTALL)
  return missing.length > 0
}

/** Where `.ci/run`'s current-Node leg installs msw 3, which needs Node 22.12+ (its engines): an app's msw of the next major. */
export const MSW3 = '.tmp/msw3/node_modules/msw'
export const MSW3_INSTALL = 'npm install --prefix .tmp/msw3 --no-save --ignore-scripts msw@3.0.5'

/** True (skip) without msw 3: on Node before 22.12, or not installed in MSW3's folder. */
export function noMsw3(): boolean {
  const [major, minor] = process.versions.node.split('.').map(Number)
  if (major < 22 || (major === 22 && minor < 12)) {
    note(
      `needs Node 22.12+ for msw 3 (this is ${process.versions.node})`,
      `on Node 22.12+ (CI's second leg): ${MSW3_INSTALL}`,
    )
    return true
  }
  if (existsSync(`${MSW3}/package.json`)) return false
  note(`needs msw 3 in ${MSW3} (not installed)`, MSW3_INSTALL)
  return true
}

/** Where `.ci/run`'s current-Node leg installs the Pact tools that need Node 22+ (the verifier's pact-core 20, the comparator). */
export const PACT_TOOLS = '.tmp/pact-tools'
export const PACT_TOOLS_INSTALL = `npm install --prefix ${PACT_TOOLS} --no-save @pact-foundation/pact@17.1.4 @pact-foundation/pact-core@20.2.0 @pactflow/openapi-pact-comparator@2.3.1`

/** True (skip) without the Pact verifier and the OpenAPI comparator: on Node before 22, or not installed in PACT_TOOLS. */
export function noPactTools(): boolean {
  const major = Number(process.versions.node.split('.')[0])
  if (major < 22) {
    note(
      `needs Node 22+ for the Pact verifier and openapi-pact-comparator (this is ${process.versions.node})`,
      `on Node 22+ (CI's second leg): ${PACT_TOOLS_INSTALL}`,
    )
    return true
  }
  const missing = ['@pact-foundation/pact-core', '@pact-foundation/pact', '@pactflow/openapi-pact-comparator'].filter(
    (name) => !existsSync(`${PACT_TOOLS}/node_modules/${name}/package.json`),
  )
  if (missing.length) note(`needs the Pact tools in ${PACT_TOOLS} (${missing.join(', ')} missing)`, PACT_TOOLS_INSTALL)
  return missing.length > 0
}

/** Where `.ci/run` installs Portman (with Newman): a generic OpenAPI tester run against the served document (test/fuzz/portman.test.ts). */
export const PORTMAN = '.tmp/portman'
export const PORTMAN_INSTALL = `npm install --prefix ${PORTMAN} --no-save @apideck/portman@1.33.0`

/** True (skip) without Portman in PORTMAN's folder. */
export function noPortman(): boolean {
  if (existsSync(`${PORTMAN}/node_modules/.bin/portman`) && existsSync(`${PORTMAN}/node_modules/.bin/newman`))
    return false
  note(`needs Portman and Newman in ${PORTMAN} (not installed)`, PORTMAN_INSTALL)
  return true
}
