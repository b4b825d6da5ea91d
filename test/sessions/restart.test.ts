import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../../src/adapters/server/index.js'
import { StateFile } from '../../src/cli/state/state-file.js'
import { answerChecker, type Doc } from '../support/openapi-answers.js'
import { WORLDS } from './grammar.js'
import { OPTIONS } from './in-process.js'
import { freshWorld } from './properties.js'
import { sessionProperty, type Tally } from './property.js'
import { budget } from './budget.js'

/**
 * Sessions with restarts on `--state` in them, on the Node server over real HTTP: the default
 * world saved on stop and restored on start as the command line does (src/cli/state), the world
 * after each restart equal to the one before, and every property after the session.
 */
describe('any session with restarts on --state, Node server (HTTP)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sessions-restart-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('restarts give an equal world, and every property holds after the session', async () => {
    let doc: Doc | undefined
    const tally: Tally = { sessions: 0, steps: 0, requests: 0 }
    let n = 0
    const engine = {
      async open() {
        const file = join(dir, `state-${n++}.json`)
        let state = new StateFile(file)
        const start = () =>
          startServer({
            ...OPTIONS,
            port: 0,
            host: '127.0.0.1',
            beforeListen: async (app) => {
              const saved = state.read()
              const sandbox = await app.ready()
              if (saved !== undefined) await state.restore(sandbox, saved)
              await state.follow(sandbox)
            },
          })
        let server: RunningServer = await start()
        doc ??= (await (await fetch(`${server.url}/__sandbox/openapi.json`)).json()) as Doc
        return {
          fetch: (path: string, init?: RequestInit) => fetch(server.url + path, init),
          ids: [null, ...Array.from({ length: WORLDS - 1 }, () => freshWorld('restart'))],
          check: answerChecker(doc),
          async restart() {
            state.save()
            await server.close()
            state = new StateFile(file)
            server = await start()
          },
          close: () => server.close(),
        }
      },
    }
    await fc.assert(sessionProperty(engine, tally, { restart: true, maxSteps: 12 }), budget('node --state', 4))
    expect(tally.sessions).toBeGreaterThan(0)
  }, 120_000)
})
