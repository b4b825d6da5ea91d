import { afterAll, describe, expect, it } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import { unbuilt } from '../support/needs.js'
import { runCli, scenarioFolders, startCli, urlOf } from '../support/cli.js'

// Inside the package, so `import ... from 'zod'` resolves, as in an app that installed it.
const { folder } = scenarioFolders('scenario-safety-')

/** Each hook never settles when `at` names it. */
const HANG = `import * as z from 'zod'
const never = () => new Promise(() => {})
export default {
  name: 'hang',
  description: 'the hook named by at never settles',
  advice: 'none: it is a test',
  options: z.strictObject({ at: z.enum(['edge', 'before', 'after', 'none']).default('none') }),
  edge: (ctx, o) => (o.at === 'edge' ? never() : undefined),
  before: (ctx, o) => (o.at === 'before' ? never() : undefined),
  after: (ctx, reply, o) => (o.at === 'after' ? never() : reply),
}
`
/** A Standard Schema of its own that throws or answers nothing, and an activate that throws. */
const BROKEN = `export default {
  name: 'broken',
  description: 'its validator and activate fail on request',
  advice: 'none: it is a test',
  options: {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate(v) {
        if (v && v.boom) throw new Error('kaboom')
        if (v && v.nothing) return undefined
        if (v && typeof v.n === 'string') return { issues: [{ message: 'must be a number', path: ['n'] }] }
        return { value: v ?? {} }
      },
    },
  },
  activate(sandbox, o) {
    if (o.explode) throw new Error('activate blew up')
  },
  before: (ctx, o) => {
    if (o.throwing) throw new TypeError('hook blew up')
    return undefined
  },
}
`

const ADMIN = { authorization: 'Bearer atk_sandbox_admin' }
const JSON_BODY = { 'content-type': 'application/json' }

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs', 'dist/worker.mjs'))(
  'your own scenarios: slow and broken ones answer naming the scenario and its file',
  { timeout: 120_000 },
  () => {
    const dir = folder('own', { 'hang.mjs': HANG, 'broken.mjs': BROKEN })
    const started: ChildProcess[] = []
    afterAll(() => started.forEach((c) => c.kill('SIGKILL')))
    const start = async (engine: string) => {
      const { child, output } = await startCli([
        '--engine',
        engine,
        '--size',
        'small',
        '--port',
        '0',
        '--scenarios',
        dir,
        '--scenario-timeout',
        '300',
      ])
      started.push(child)
      return urlOf(output())
    }

    it.each(['node', 'workerd'])(
      '--engine %s: a hook that never settles answers 500 within the bound, and the journal says so',
      async (engine) => {
        const base = await start(engine)
        for (const at of ['edge', 'before', 'after']) {
          const began = Date.now()
          const res = await fetch(`${base}/api/layers`, {
            headers: { ...ADMIN, 'x-sandbox-scenario': `hang;at=${at}` },
            signal: AbortSignal.timeout(10_000),
          })
          expect(Date.now() - began).toBeLessThan(5000)
          expect(res.status).toBe(500)
          expect(JSON.stringify(await res.json())).toContain(
            `scenario \\"hang\\" (hang.mjs): its ${at} hook did not settle within 300 ms (--scenario-timeout)`,
          )
          expect(res.headers.get('x-sandbox-fault')).toContain('scenario-timeout')
        }
        const journal = await (await fetch(`${base}/__sandbox/requests`)).json()
        const entries = journal.requests as { path: string; status: number; faults: string[] }[]
        const hung = entries.filter((e) => e.path === '/api/layers')
        expect(hung).toHaveLength(3)
        for (const e of hung) {
          expect(e.status).toBe(500)
          expect(e.faults).toEqual(expect.arrayContaining(['hang', 'scenario-timeout']))
        }
        // The world goes on: a request without the scenario answers.
        expect((await fetch(`${base}/api/layers`, { headers: ADMIN })).status).toBe(200)
      },
    )

    it.each(['node', 'workerd'])(
      '--engine %s: a validator that throws or answers nothing, a throwing activate or hook: 500 naming scenario and file; a refused option: 400',
      async (engine) => {
        const base = await start(engine)
        const put = (options: object) =>
          fetch(`${base}/__sandbox/scenarios`, {
            method: 'PUT',
            headers: JSON_BODY,
            body: JSON.stringify({ active: [{ name: 'broken', options }] }),
          })
        const said = async (res: Response, status: number, text: string) => {
          expect(res.status).toBe(status)
          expect(JSON.stringify(await res.json())).toContain(text)
        }
        await said(
          await put({ boom: true }),
          500,
          'scenario \\"broken\\" (broken.mjs): its options schema threw (kaboom)',
        )
        await said(
          await put({ nothing: true }),
          500,
          'scenario \\"broken\\" (broken.mjs): its options schema answered no result',
        )
        await said(
          await put({ explode: true }),
          500,
          'scenario \\"broken\\" (broken.mjs): its activate hook threw (activate blew up)',
        )
        // The caller's options refused: a 400, as for any scenario.
        await said(await put({ n: 'x' }), 400, 'active.0: broken.options.n: must be a number')
        // Nothing of those turned it on.
        const listed = await (await fetch(`${base}/__sandbox/scenarios`)).json()
        expect(listed.schedule).toEqual([])
        await said(
          await fetch(`${base}/api/layers`, { headers: { ...ADMIN, 'x-sandbox-scenario': 'broken;boom=true' } }),
          500,
          'scenario \\"broken\\" (broken.mjs): its options schema threw (kaboom)',
        )
        await said(
          await fetch(`${base}/api/layers`, { headers: { ...ADMIN, 'x-sandbox-scenario': 'broken;throwing=true' } }),
          500,
          'scenario \\"broken\\" (broken.mjs): its before hook threw (hook blew up)',
        )
        await said(
          await fetch(`${base}/__sandbox/pact/states`, {
            method: 'POST',
            headers: JSON_BODY,
            body: JSON.stringify({
              state: 'the scenario broken is on',
              params: { options: { boom: true } },
              action: 'setup',
            }),
          }),
          500,
          'scenario \\"broken\\" (broken.mjs): its options schema threw (kaboom)',
        )
      },
    )

    it('a scenario module that never finishes loading is refused at start within the bound, naming the file', async () => {
      const stuck = folder('stuck', { 'stuck.mjs': `await new Promise(() => {})\nexport default {}\n` })
      const began = Date.now()
      // The load's bound is --scenario-timeout, never less than 10 s (a module may import much on a busy machine).
      const r = await runCli(['--port', '0', '--scenarios', stuck, '--scenario-timeout', '500'])
      expect(r.code).toBe(1)
      expect(Date.now() - began).toBeLessThan(25_000)
      expect(r.err).toContain('--scenarios: stuck.mjs: it did not finish loading within 10000 ms')
    })
  },
)
