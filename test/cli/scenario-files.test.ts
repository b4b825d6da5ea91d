import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { unbuilt } from '../support/needs.js'
import { runCli, scenarioFolders, startCli, urlOf } from '../support/cli.js'

// Inside the package, so `import { defineScenario } from 'fleet-sandbox'` resolves to it, as in an app that installed it.
const { root, folder } = scenarioFolders('scenario-files-')

/** A TypeScript scenario with types, counters kept per world, and an option with a default. */
const MAINTENANCE = `import * as z from 'zod'
import { defineScenario, type RouteContext } from 'fleet-sandbox'

interface Counter { count: number }

export default defineScenario({
  name: 'maintenance-window',
  description: 'every API route answers 503 with a maintenance notice; the nth call counts per world',
  advice: 'Show a maintenance banner and retry after the window',
  options: z.strictObject({ minutes: z.number().int().min(1).default(30) }),
  edge(ctx: RouteContext, o: { minutes: number }) {
    const state = (ctx.sandbox.scenarioState.get('maintenance-window') as Counter | undefined) ?? { count: 0 }
    state.count++
    ctx.sandbox.scenarioState.set('maintenance-window', state)
    ctx.fault('maintenance-window')
    return { status: 503, body: { message: 'maintenance for ' + o.minutes + ' minutes', call: state.count } }
  },
})
`
const TEAPOT = `import * as z from 'zod'
export default {
  name: 'teapot',
  description: 'answers 418 after the handler',
  advice: 'none: it is a test',
  options: z.strictObject({}),
  after: () => ({ status: 418, body: { message: 'teapot' } }),
}
`

/**
 * Throws the package's HttpError (the command line, which bundles its own copy, must answer its
 * status), with options in zod 3 (any Standard Schema is taken).
 */
const CLOSED = `import { z } from 'zod/v3'
import { HttpError, defineScenario } from 'fleet-sandbox'

export default defineScenario({
  name: 'closed',
  description: 'writes answer 503 with Retry-After, thrown as an HttpError',
  advice: 'Keep reads working and retry writes later',
  options: z.object({ retryAfter: z.number().int().default(60) }).strict(),
  edge(ctx, o) {
    if (ctx.request.method !== 'GET') throw new HttpError(503, 'closed for writes', { 'retry-after': String(o.retryAfter) })
    return undefined
  },
})
`
/** No options at all. */
const BARE = `export default {
  name: 'bare',
  description: 'answers 418 after the handler',
  advice: 'none: it is a test',
  after: () => ({ status: 418, body: { message: 'bare' } }),
}
`

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs', 'dist/worker.mjs'))(
  '--scenarios DIR: your own scenario files',
  () => {
    // workerd cannot load TypeScript or a package by name: the files are bundled beside the Worker (src/own-scenarios/worker-modules.ts).
    it.each(['node', 'workerd'])(
      '--engine %s loads .ts (no build step) and .mjs files: in the catalog, at start with --scenario, in the header, scoped, counted per world',
      async (engine) => {
        const dir = folder(`good-${engine}`, {
          'maintenance-window.ts': MAINTENANCE,
          'teapot.mjs': TEAPOT,
          'closed.ts': CLOSED,
          'bare.mjs': BARE,
          'notes.txt': 'not a scenario',
        })
        const { child, output } = await startCli([
          '--engine',
          engine,
          '--port',
          '0',
          '--quiet',
          '--scenarios',
          dir,
          '--scenario',
          'maintenance-window;minutes=5;routes=listVehicleTypes',
        ])
        try {
          const url = urlOf(output())
          const catalog = await (await fetch(`${url}/__sandbox/scenarios`)).json()
          expect(catalog.scenarios.map((s: { name: string }) => s.name)).toEqual(
            expect.arrayContaining(['maintenance-window', 'teapot', 'slow']),
          )
          expect(catalog.scenarios.find((s: { name: string }) => s.name === 'maintenance-window')).toMatchObject({
            active: true,
            options: { minutes: 5, routes: ['listVehicleTypes'] },
          })
          const call = (path: string, headers: Record<string, string> = {}) => fetch(url + path, { headers })
          const first = await call('/api/vehicle-types')
          expect(first.status).toBe(503)
          expect(await first.json()).toEqual({ message: 'maintenance for 5 minutes', call: 1 })
          expect((await call('/api/layers')).status).toBe(401)
          expect(await (await call('/api/vehicle-types')).json()).toMatchObject({ call: 2 })
          // Another world has its own counter, and its own scenarios.
          await fetch(`${url}/__sandbox/scenarios`, {
            method: 'PUT',
            headers: { 'x-sandbox-id': 'other', 'content-type': 'application/json' },
            body: JSON.stringify({ active: ['maintenance-window'] }),
          })
          expect(await (await call('/api/layers', { 'x-sandbox-id': 'other' })).json()).toMatchObject({ call: 1 })
          expect((await call('/api/layers', { 'x-sandbox-scenario': 'teapot' })).status).toBe(418)
          // A thrown HttpError answers its own status and headers, not a 500.
          const write = (scenario: string) =>
            fetch(`${url}/api/session-auth/sign-in/email`, {
              method: 'POST',
              headers: { 'x-sandbox-scenario': scenario, 'content-type': 'application/json' },
              body: '{}',
            })
          const closed = await write('closed;retryAfter=5')
          expect([closed.status, closed.headers.get('retry-after'), (await closed.json()).message]).toEqual([
            503,
            '5',
            'closed for writes',
          ])
          expect(await (await write('closed;retryAfter=soon')).text()).toMatch(
            /closed\.options\.retryAfter: Expected number, received string/,
          )
          // Without options: none but routes.
          expect((await call('/api/layers', { 'x-sandbox-scenario': 'bare' })).status).toBe(418)
          expect(await (await call('/api/layers', { 'x-sandbox-scenario': 'bare;x=1' })).text()).toMatch(
            /bare\.options: unknown option x; bare takes routes/,
          )
          expect(catalog.scenarios.find((s: { name: string }) => s.name === 'bare')).toMatchObject({
            options: {},
            optionList: [{ name: 'routes' }],
          })
        } finally {
          child.kill('SIGKILL')
        }
      },
    )

    it('refuses at start, naming the file and the field: a clash with a bundled name, a wrong field, no default export', async () => {
      const cases: [Record<string, string>, RegExp][] = [
        [
          { 'slow.mjs': TEAPOT.replace("'teapot'", "'slow'") },
          /--scenarios: slow\.mjs: name "slow" is taken by a bundled scenario/,
        ],
        [{ 'a.mjs': TEAPOT, 'b.mjs': TEAPOT }, /--scenarios: b\.mjs: name "teapot" is taken by a\.mjs/],
        [
          { 'bad.mjs': TEAPOT.replace("'teapot'", "'Bad Name'") },
          /--scenarios: bad\.mjs: name: must be 1 to 64 lower-case letters/,
        ],
        [
          { 'bad.mjs': TEAPOT.replace("advice: 'none: it is a test',", '') },
          /--scenarios: bad\.mjs: advice: must be a text/,
        ],
        [
          { 'bad.mjs': TEAPOT.replace('after: () =>', "after: 'x', other: () =>") },
          /--scenarios: bad\.mjs: after: must be a function/,
        ],
        [{ 'bad.mjs': 'export const x = 1\n' }, /--scenarios: bad\.mjs: it has no default export/],
        [
          { 'bad.mjs': TEAPOT.replace('z.strictObject({})', '{ safeParse: () => ({ success: true }) }') },
          /--scenarios: bad\.mjs: options: must be a Standard Schema \(zod 3.24 or later, zod 4, valibot/,
        ],
        [{ 'bad.ts': 'export default {\n' }, /--scenarios: bad\.ts: /],
        // A default export that throws when read: refused naming the file, not as its bare error.
        [
          { 'bad.mjs': "export default new Proxy({}, { get() { throw new Error('no reading me') } })\n" },
          /--scenarios: bad\.mjs: .*no reading me/,
        ],
        [{ 'bad.mjs': "export default { then() { throw new Error('a thenable') } }\n" }, /--scenarios: bad\.mjs: /],
      ]
      let i = 0
      for (const [files, message] of cases) {
        const { code, err } = await runCli(['--port', '0', '--scenarios', folder(`bad-${i++}`, files)])
        expect(code, err).toBe(1)
        expect(err).toMatch(message)
      }
      const missing = await runCli(['--port', '0', '--scenarios', join(root, 'nowhere')])
      expect(missing.err).toMatch(/--scenarios .*nowhere: not a folder/)
      const unknown = await runCli([
        '--port',
        '0',
        '--scenarios',
        folder('good2', { 'teapot.mjs': TEAPOT }),
        '--scenario',
        'coffee',
      ])
      expect(unknown.err).toMatch(/--scenario: unknown scenario "coffee"; known: .*teapot/)
    })

    it('--engine workerd refuses at start a file that imports a part of the package the Worker cannot answer, naming it', async () => {
      const dir = folder('workerd-bad', { 'teapot.mjs': `import 'fleet-sandbox/api'\n${TEAPOT}` })
      const { code, err } = await runCli(['--engine', 'workerd', '--port', '0', '--scenarios', dir])
      expect(code, err).toBe(1)
      expect(err).toMatch(
        /--scenarios: teapot\.mjs: imports fleet-sandbox\/api: on workerd a scenario file may import only "fleet-sandbox"/,
      )
    })

    it('--help lists them beside the bundled scenarios and says where the operation ids are', async () => {
      const { out } = await runCli(['--help', '--scenarios', folder('help', { 'teapot.mjs': TEAPOT })])
      expect(out).toMatch(/Scenarios \(--scenario, x-sandbox-scenario; each takes routes=a\|b\): .*slow.*teapot/)
      expect(out).toContain('docs/routes.md')
    })
  },
)
