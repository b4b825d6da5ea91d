import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SandboxApp } from '../../src/core/app/app.js'
import { createServedApp } from '../../src/apps/server-app.js'
import { StateFile } from '../../src/cli/state/state-file.js'
import { NOW } from '../support/runtimes.js'
import { answerChecker, type Doc } from '../support/openapi-answers.js'
import { WORLDS } from './grammar.js'
import type { AnswerCheck, Target } from './runner.js'

/**
 * The app in this process, as msw/node serves it (`app.fetch`, no socket): the long run's engine,
 * and a restart on `--state` as the command line does one (src/cli/state/state-file.ts: saved on
 * stop, restored before the next start's first request, followed as it changes).
 */
export interface InProcess extends Target {
  app: SandboxApp
  check: AnswerCheck
  close(): void
}

export const OPTIONS = { seed: 1, now: NOW, size: 'small' as const }
const ORIGIN = 'http://sandbox.test'

let doc: Doc | undefined

export async function inProcess(label = 'session'): Promise<InProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sessions-'))
  const file = join(dir, 'state.json')
  let state = new StateFile(file)
  let app = createServedApp(OPTIONS)
  await state.follow(await app.ready())
  const fetch = (path: string, init?: RequestInit) =>
    app.fetch(new Request(ORIGIN + path, init), { via: 'msw', clientAddress: '127.0.0.1' })
  doc ??= (await (await fetch('/__sandbox/openapi.json')).json()) as Doc
  const ids: (string | null)[] = [
    null,
    ...Array.from({ length: WORLDS - 1 }, (_, i) => `${label}-${process.pid}-${next++}-${i}`),
  ]
  return {
    get app() {
      return app
    },
    ids,
    fetch,
    check: answerChecker(doc),
    async restart() {
      state.save()
      const saved = new StateFile(file)
      const text = saved.read()
      app = createServedApp(OPTIONS)
      const sandbox = await app.ready()
      // Other worlds live in the process: a restart loses them, as the command line's does.
      if (text !== undefined) await saved.restore(sandbox, text)
      await saved.follow(sandbox)
      state = saved
    },
    close() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
let next = 0
