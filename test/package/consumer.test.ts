import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unbuilt } from '../support/needs.js'
import { startCli, urlOf } from '../support/cli.js'

/** One scenario a file in scenarios/ (its index.ts lists them). */
const SCENARIO_FILES = readdirSync('scenarios').filter((f) => f.endsWith('.ts') && f !== 'index.ts').length

/**
 * A fresh app outside the repository installs the tarball `npm pack` makes, as a user's app
 * would: it imports the root, `/node`, `/browser` and `/server` entries, typechecks with tsc
 * (scenario typos included), and answers requests in process, through msw/node and over HTTP.
 */
const repo = resolve('.')
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  version: string
  dependencies: Record<string, string>
  scripts: Record<string, string>
}
const app = mkdtempSync(join(tmpdir(), 'fleet-sandbox-consumer-'))
const run = (cmd: string, args: string[], cwd = app) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  })

const consumer = `
import { createSandboxApp, routes, scenarios } from 'fleet-sandbox'
import { setupSandboxServer, type ScenarioName } from 'fleet-sandbox/node'
import { startSandbox, type StartSandboxOptions } from 'fleet-sandbox/browser'
import { startServer } from 'fleet-sandbox/server'
import { openapi, type components, type paths } from 'fleet-sandbox/api'
import served from 'fleet-sandbox/api/openapi.json' with { type: 'json' }
import createClient from 'openapi-fetch'
import { sandboxHeaders } from 'fleet-sandbox/ssr'

// @ts-expect-error: a misspelt scenario does not compile
const typo: StartSandboxOptions = { scenario: 'rate-limted' }
// @ts-expect-error: failures is a number
const wrong: StartSandboxOptions = { scenario: [{ name: 'rate-limited', options: { failures: 'x' } }] }
const named: ScenarioName = 'slow'
const options: StartSandboxOptions = { scenario: [{ name: named, options: { ms: 5 } }], fixtures: { layers: [] } }
void typo, wrong, options

const results: Record<string, unknown> = { routes: routes.length, scenarios: scenarios.length }

// The root: the core app, one request handed to its pipeline.
const core = createSandboxApp({ seed: 1, size: 'small' })
const health = routes.find((r) => r.path === '/__sandbox/health')!
results.root = (await (await core.handle(health, new Request('http://x/__sandbox/health'), {})).json() as { status: string }).status

// /node: msw/node answers fetch in this process.
const node = setupSandboxServer({ origins: ['http://api.consumer.test'] })
await node.listen()
const signIn = await fetch('http://api.consumer.test/api/session-auth/sign-in/email', {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
})
results.node = signIn.status
node.close()

// /server: the Node server over real HTTP.
const server = await startServer({ seed: 1, size: 'small', port: 0, host: '127.0.0.1' })
results.server = (await fetch(server.url + '/api/layers', { headers: { authorization: 'Bearer atk_sandbox_admin' } })).status

// /api: a client typed from the shipped types (openapi-fetch), against the same server.
const api = createClient<paths>({ baseUrl: server.url })
const signedIn = await api.POST('/api/session-auth/sign-in/email', { body: { email: 'admin@fleet.test', password: 'sandbox' } })
const email: string | undefined = signedIn.data?.user.email
const token = signedIn.response.headers.get('set-auth-token')!
const layers = await api.GET('/api/layers', { headers: { authorization: \`Bearer \${token}\` } })
const error: components['schemas'] extends object ? unknown : never = layers.error
void error
results.api = { email, layers: layers.response.status, document: openapi === served || JSON.stringify(openapi) === JSON.stringify(served) }
// Compiled, never called.
export const wrongCalls = () => [
  // @ts-expect-error: no such path
  api.GET('/api/layerz', {}),
  // @ts-expect-error: sign-in takes email and password, not pasword
  api.POST('/api/session-auth/sign-in/email', { body: { email: 'admin@fleet.test', pasword: 'sandbox' } }),
]
await server.close()

// /ssr: the world of an incoming request, for the server's own calls.
results.ssr = sandboxHeaders(new Request('http://app.test/', { headers: { cookie: 'sandbox-id=w1' } }))

// /browser: loads in Node and says where it runs.
results.browser = await startSandbox().then(() => 'started', (error: Error) => error.message)

console.log(JSON.stringify(results))
`

describe.skipIf(unbuilt('dist/src/index.js'))('a fresh consumer app installing the packed package', () => {
  let tarball: string
  beforeAll(() => {
    // The suite builds first (npm test); --ignore-scripts keeps this run from rebuilding dist under the other suites.
    const name = run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', app], repo)
      .trim()
      .split('\n')
      .at(-1)!
    tarball = join(app, name)
    // The dependencies come from this repository's node_modules, so the install needs no network.
    for (const dep of Object.keys(pkg.dependencies)) {
      mkdirSync(dirname(join(app, 'node_modules', dep)), { recursive: true })
      symlinkSync(join(repo, 'node_modules', dep), join(app, 'node_modules', dep), 'dir')
    }
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          types: [],
          strict: true,
          skipLibCheck: true,
          resolveJsonModule: true,
          outDir: 'out',
        },
        include: ['app.ts'],
      }),
    )
    writeFileSync(join(app, 'app.ts'), consumer)
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', tarball])
    // openapi-fetch, the client the fleet-sandbox/api recipe types (docs/api-types.md); linked after the install, which prunes what the app does not list.
    // msw too: the app's own (a peer: fleet-sandbox/node and /browser run on the msw the app has, 2 or 3).
    for (const dep of ['openapi-fetch', 'openapi-typescript-helpers', 'msw'])
      symlinkSync(join(repo, 'node_modules', dep), join(app, 'node_modules', dep), 'dir')
  }, 120_000)
  afterAll(() => rmSync(app, { recursive: true, force: true }))

  it('installs without a build: no install script in the packed package.json, built files inside', () => {
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/fleet-sandbox/package.json'), 'utf8'))
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(installed.scripts?.[script], script).toBeUndefined()
    expect(pkg.scripts.prepack).toContain('build')
    for (const entry of Object.values(installed.exports as Record<string, { default?: string } | string>)) {
      const file = typeof entry === 'string' ? entry : entry.default!
      expect(existsSync(join(app, 'node_modules/fleet-sandbox', file)), file).toBe(true)
    }
  })

  it('typechecks with tsc (a misspelt scenario is a type error) and answers a request each way', () => {
    run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'])
    const out = JSON.parse(run(process.execPath, ['out/app.js']).trim().split('\n').at(-1)!)
    expect(out).toEqual({
      routes: expect.any(Number),
      scenarios: SCENARIO_FILES,
      root: 'ok',
      node: 200,
      server: 200,
      browser: 'startSandbox runs in a browser page; in Node tests use setupSandboxServer from fleet-sandbox/node',
      api: { email: 'admin@fleet.test', layers: 200, document: true },
      ssr: { 'x-sandbox-id': 'w1' },
    })
  }, 120_000)

  it('refuses a typed call to a path the sandbox does not serve, or with a wrong field (tsc fails)', () => {
    const compile = (name: string, call: string) => {
      const head =
        "import createClient from 'openapi-fetch'\nimport type { paths } from 'fleet-sandbox/api'\nconst api = createClient<paths>({ baseUrl: 'http://127.0.0.1:4010' })\n"
      writeFileSync(join(app, `${name}.ts`), `${head}${call}\n`)
      const flags = [
        '--ignoreConfig',
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--target',
        'ES2022',
        '--lib',
        'ES2023,DOM',
        '--types',
        '',
      ]
      try {
        run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), ...flags, `${name}.ts`])
        return 'compiled'
      } catch (error) {
        return String((error as { stdout?: string }).stdout)
      }
    }
    expect(compile('right', "void api.GET('/api/layers')")).toBe('compiled')
    expect(compile('wrong-path', "void api.GET('/api/layerz', {})")).toMatch(/wrong-path\.ts\(4,[\s\S]*"\/api\/layerz"/)
    expect(
      compile(
        'wrong-field',
        "void api.POST('/api/session-auth/sign-in/email', { body: { email: 'a@b.c', pasword: 'x' } })",
      ),
    ).toMatch(/wrong-field\.ts\(4,[\s\S]*pasword/)
  }, 120_000)

  it('runs the installed command line', () => {
    expect(run(process.execPath, [join(app, 'node_modules/.bin/fleet-sandbox'), '--version']).trim()).toBe(pkg.version)
  })

  // The command line is a bundle with its own copy of HttpError; the file imports the installed package's.
  it("npx fleet-sandbox --scenarios: a file without options that throws the package's HttpError answers its status", async () => {
    mkdirSync(join(app, 'sandbox-scenarios'), { recursive: true })
    writeFileSync(
      join(app, 'sandbox-scenarios', 'closed.mjs'),
      `import { HttpError, defineScenario } from 'fleet-sandbox'
export default defineScenario({
  name: 'closed',
  description: 'every request answers 503, thrown',
  advice: 'Retry later',
  edge() { throw new HttpError(503, 'closed', { 'retry-after': '9' }) },
})
`,
    )
    const { child, output } = await startCli(
      ['--port', '0', '--quiet', '--scenarios', 'sandbox-scenarios', '--scenario', 'closed'],
      app,
      join(app, 'node_modules/.bin/fleet-sandbox'),
    )
    try {
      const res = await fetch(`${urlOf(output())}/api/layers`)
      expect([res.status, res.headers.get('retry-after'), (await res.json()).message]).toEqual([503, '9', 'closed'])
    } finally {
      child.kill('SIGKILL')
    }
  })
})
