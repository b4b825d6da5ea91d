import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { unbuilt } from '../support/needs.js'
import { startCli, urlOf } from '../support/cli.js'
import { expectEach } from '../support/each.js'

mkdirSync('.tmp', { recursive: true })
const root = mkdtempSync(join(process.cwd(), '.tmp', 'watch-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const scenario = (status: number) => `export default {
  name: 'teapot',
  description: 'answers ${status} after the handler',
  advice: 'none: it is a test',
  options: (await import('zod')).strictObject({}),
  after: () => ({ status: ${status}, body: { message: 'teapot' } }),
}
`
const types = (names: string[]) => JSON.stringify(names.map((name, i) => ({ id: `vt_${i}`, name, group: 'Pasajeros' })))

describe.skipIf(unbuilt('dist/fleet-sandbox.mjs', 'dist/worker.mjs'))(
  '--watch: fixtures and scenario files reload without a restart',
  () => {
    // On workerd a reload restarts the runtime under the front, which holds requests meanwhile (src/engines/workerd/front/launch.ts).
    it.each(['node', 'workerd'])(
      '--engine %s: a changed collection is replaced in every world, the rest kept; a broken file keeps the last good version and says why; a changed scenario replaces its own',
      async (engine) => {
        const fixtures = join(root, engine, 'fixtures')
        const scenarios = join(root, engine, 'scenarios')
        mkdirSync(scenarios, { recursive: true })
        cpSync('fixtures/examples', fixtures, { recursive: true })
        writeFileSync(join(scenarios, 'teapot.mjs'), scenario(418))
        const { child, output } = await startCli([
          '--engine',
          engine,
          '--port',
          '0',
          '--fixtures',
          fixtures,
          '--scenarios',
          scenarios,
          '--watch',
          '--now',
          '2026-11-22T12:00:00.000Z',
        ])
        try {
          const url = urlOf(output())
          const json = (path: string, init: RequestInit = {}) => fetch(url + path, init).then((r) => r.json())
          const token = (
            await fetch(`${url}/api/session-auth/sign-in/email`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
            })
          ).headers.get('set-auth-token')!
          const auth = { authorization: `Bearer ${token}` }
          // Every answer during a reload is a real one (on workerd the front holds requests while the runtime restarts).
          const statuses: number[] = []
          const names = async () => {
            const res = await fetch(`${url}/__sandbox/collections/vehicleTypes?limit=100`)
            statuses.push(res.status)
            return (await res.json()).items.map((t: { name: string }) => t.name).sort()
          }
          await fetch(`${url}/__sandbox/clock`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ advanceBy: '2h' }),
          })
          await fetch(`${url}/__sandbox/scenarios`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ active: ['teapot'] }),
          })
          const before = (await json('/__sandbox/requests')).requests.length

          writeFileSync(join(fixtures, 'vehicleTypes.json'), types(['Bus', 'Tram']))
          await expect.poll(names, { timeout: 10_000 }).toEqual(['Bus', 'Tram'])
          expectEach(statuses, (status) => status === 200)
          expect(output()).toMatch(/--watch: .*vehicleTypes\.json: vehicleTypes replaced in every world \(2 records\)/)
          // The rest of the world stayed: the session, the clock, the scenario, the journal.
          expect((await fetch(`${url}/api/auth/users/me`, { headers: auth })).status).toBe(418)
          expect(Date.parse((await json('/__sandbox/clock')).now)).toBeGreaterThanOrEqual(
            Date.parse('2026-11-22T14:00:00.000Z'),
          )
          expect((await json('/__sandbox/requests')).requests.length).toBeGreaterThan(before)
          // An isolated world and a reset see the new rows too.
          expect(
            (await json('/__sandbox/collections/vehicleTypes', { headers: { 'x-sandbox-id': 'other' } })).items
              .map((t: { name: string }) => t.name)
              .sort(),
          ).toEqual(['Bus', 'Tram'])
          await fetch(`${url}/__sandbox/reset`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
          expect(await names()).toEqual(['Bus', 'Tram'])

          writeFileSync(join(fixtures, 'vehicleTypes.json'), '[{"id": 1')
          await expect
            .poll(output, { timeout: 10_000 })
            .toMatch(
              /--watch: .*vehicleTypes\.json: must be a JSON array of vehicleTypes records .*; the last good version stays/,
            )
          expect(await names()).toEqual(['Bus', 'Tram'])
          // A link out of the folder is not followed, and the refusal shows nothing of its target.
          writeFileSync(join(root, engine, 'outside.json'), `[{"id": "SECRET-${engine}"`)
          rmSync(join(fixtures, 'vehicleTypes.json'))
          symlinkSync(join(root, engine, 'outside.json'), join(fixtures, 'vehicleTypes.json'))
          await expect
            .poll(output, { timeout: 10_000 })
            .toMatch(
              /--watch: .*vehicleTypes\.json: must be a file in the folder \(a link may point only inside it\); the last good version stays/,
            )
          expect(output()).not.toContain('SECRET')
          expect(await names()).toEqual(['Bus', 'Tram'])

          await fetch(`${url}/__sandbox/scenarios`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ active: ['teapot'] }),
          })
          writeFileSync(join(scenarios, 'teapot.mjs'), scenario(420))
          await expect.poll(async () => (await fetch(`${url}/api/layers`)).status, { timeout: 10_000 }).toBe(420)
          expect(output()).toMatch(/--watch: .*teapot\.mjs: scenario teapot reloaded; active ones stay active/)
          writeFileSync(join(scenarios, 'teapot.mjs'), scenario(421).replace("name: 'teapot'", "name: 'Teapot!'"))
          await expect
            .poll(output, { timeout: 10_000 })
            .toMatch(/--watch: .*teapot\.mjs: name: must be 1 to 64 lower-case letters.*; the last good version stays/)
          expect((await fetch(`${url}/api/layers`)).status).toBe(420)
          // A clean stop after the reloads still reaches every world (workerd: stubs taken again after each restart).
          const code = new Promise((resolve) => child.once('exit', resolve))
          child.kill('SIGTERM')
          expect(await code).toBe(0)
          expect(output()).toMatch(/fleet-sandbox stopped \(SIGTERM\)/)
          expect(output()).not.toMatch(/failed/)
        } finally {
          child.kill('SIGKILL')
        }
      },
    )
  },
)
