import { Directory } from '../core/directory.js'
import { type ObjectState, type WorkerEnv, answerCall, call, objectFor, optionsFrom } from './env.js'
import { recordBackend } from '../../../core/persist/backend.js'

/** The Durable Object of the deployment's directory (src/engines/workerd/core/directory.ts): every id, and the seed instant. */
export class SandboxDirectory {
  readonly #directory: Directory

  constructor(state: ObjectState, env: WorkerEnv) {
    const { sandboxIdleMs: idleMs, maxSandboxes, log } = optionsFrom(env)
    this.#directory = new Directory(recordBackend(state.storage), {
      idleMs,
      maxSandboxes,
      log,
      info: (id) => call(objectFor(env, id), 'info'),
      drop: (id) => call(objectFor(env, id), 'drop'),
    })
  }

  fetch(request: Request): Promise<Response> {
    const d = this.#directory
    return answerCall(request, {
      hello: d.hello.bind(d),
      list: d.list.bind(d),
      drop: d.drop.bind(d),
      evicted: d.evicted.bind(d),
      forget: d.forget.bind(d),
    })
  }
}
