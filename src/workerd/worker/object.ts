import { recordBackend } from '../../core/persist/backend.js'
import type { FixtureRows } from '../../core/store/fixtures.js'
import { HostedSandbox } from '../core/hosted.js'
import { sandboxIdOf, servingSandbox, validSandboxId } from '../../core/sandbox/sandbox-id.js'
import { summarize } from '../../core/sandbox/summary.js'
import { createSandboxApp } from '../../sandbox-app.js'
import { ownDefinitions } from './own-scenarios.js'
import { BATCH_HEADER, serveBatch } from '../core/batch.js'
import { INTERNAL_HEADER, type ObjectState, type WorkerEnv, answerCall, call, directoryOf, optionsFrom } from './env.js'

/**
 * The Durable Object of one sandbox id: the same SandboxApp, route table and pipeline as the
 * Node server, serving the one sandbox the Worker routed here, kept in the object's storage
 * (src/workerd/core/hosted.ts).
 */
export class SandboxObject {
  readonly #hosted: HostedSandbox
  readonly #frontKey: string | undefined

  constructor(state: ObjectState, env: WorkerEnv) {
    const options = optionsFrom(env)
    this.#frontKey = env.SANDBOX_FRONT_KEY || undefined
    const { storage } = state
    this.#hosted = new HostedSandbox({
      ...options,
      idleMs: options.sandboxIdleMs,
      backend: recordBackend(storage),
      wipe: () => storage.deleteAlarm().then(() => storage.deleteAll()),
      wakeAt: (at) => storage.setAlarm(at),
      directory: (name, ...args) => call(directoryOf(env), name, ...args),
      app: (more) => createSandboxApp({ ...options, ...more, ...(ownDefinitions() && { scenarioDefinitions: ownDefinitions() }) }),
    })
  }

  fetch(request: Request): Promise<Response> {
    if (request.headers.has(INTERNAL_HEADER)) return this.#internal(request)
    if (this.#frontKey && request.headers.get(BATCH_HEADER) === this.#frontKey) return this.#batch(request)
    return this.#serve(request)
  }

  /** The id is read here once: the pipeline takes it from `meta` ('' for none) and refuses a malformed one with its 400. */
  #serve(request: Request, asked = sandboxIdOf(request) ?? ''): Promise<Response> {
    const id = asked && validSandboxId(asked) ? asked : 'default'
    return this.#hosted.fetch(request, id, { clientAddress: request.headers.get('cf-connecting-ip') ?? undefined, sandboxId: asked })
  }

  /** Requests the command line's front sent together (src/workerd/core/batch.ts), each served as on its own. */
  async #batch(request: Request): Promise<Response> {
    const id = servingSandbox(request)
    return new Response(serveBatch(new Uint8Array(await request.arrayBuffer()), new URL(request.url).origin, (one) => servingSandbox(one) === id, (one) => this.#serve(one), () => this.#hosted.stored()))
  }

  alarm(): Promise<void> {
    return this.#hosted.alarm()
  }

  /** Calls from the directory, and from the command line on the default sandbox (banner, --state, --fixtures). */
  #internal(request: Request): Promise<Response> {
    const hosted = this.#hosted
    const open = () => hosted.open('default')
    return answerCall(request, {
      info: () => hosted.info(),
      drop: () => hosted.drop(),
      flush: () => hosted.flush(),
      banner: async () => summarize((await open()).sandbox),
      snapshot: async () => (await open()).sandbox.snapshot(),
      // --watch: a changed --fixtures file replaces its collection in this object's world (then stored whole).
      replaceFixtures: async (id: string, rows: FixtureRows) => {
        const live = await hosted.open(id)
        await live.app.sandboxes.replaceFixtures(rows)
        await live.stored.flush()
      },
      restore: async (state: unknown) => {
        const live = await open()
        await live.sandbox.restore(state)
        await live.stored.flush()
      },
    })
  }
}
