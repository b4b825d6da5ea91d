import type { Sandbox } from '../core/sandbox/sandbox.js'
import { changeMark } from '../core/sandbox/change-count.js'
import { summarize } from '../core/sandbox/summary.js'
import { startServer } from '../adapters/server/index.js'
import type { StartEngine } from './engine.js'

/** `--engine node`: the Node server (src/adapters/server) in this process. */
export const startNodeEngine: StartEngine = async ({
  beforeListen,
  persist: _,
  scenarioFiles: _f,
  scenarioTimeoutMs: _t,
  ...options
}) => {
  let sandbox!: Sandbox
  let startMark = ''
  const server = await startServer({
    ...options,
    async beforeListen(app) {
      sandbox = await app.ready()
      await beforeListen(sandbox)
      startMark = changeMark(sandbox)
    },
  })
  return {
    url: server.url,
    summary: async () => summarize(sandbox),
    snapshot: async () => sandbox.snapshot(),
    snapshotText: async () => JSON.stringify(sandbox.snapshot()),
    changes: async () => changeMark(sandbox),
    startMark,
    close: server.close,
    // The app is in this process: a reload replaces in place, nothing restarts.
    reload: {
      fixtures: (rows) => server.app.sandboxes.replaceFixtures(rows),
      scenario: async (def) => server.app.scenarios.replace(def),
    },
  }
}
