import { changeMark } from '../../../core/sandbox/change-count.js'
import { recordBackend } from '../../../core/persist/backend.js'
import type { FixtureRows } from '../../../core/store/fixtures.js'
import { FRAMED_HEADER, FRONT_REQUEST_HEADER, HostedSandbox } from '../core/hosted.js'
import { UPSTREAM_HEADER } from '../../../core/bridge/passthrough.js'
import { CONTROL_TOKEN_HEADER } from '../../../core/auth/guard.js'
import { shownHeaders } from '../../../core/http/shown-headers.js'
import { SANDBOX_ID_HEADER } from '../../../core/sandbox/sandbox-id.js'
import { servingId } from '../core/serving.js'
import { type Target, splitUrl, targetOf } from '../../../core/http/url.js'
import { summarize } from '../../../core/sandbox/summary.js'
import { createServedApp } from '../../../apps/server-app.js'
import { ownDefinitions } from '../../../own-scenarios/worker.js'
import { BATCH_HEADER, serveBatch } from '../core/batch.js'
import { INTERNAL_HEADER, type ObjectState, type WorkerEnv, answerCall, call, directoryOf, optionsFrom } from './env.js'

/** The front's `cf-connecting-ip` (the caller's address, for the sandbox's rate limits) is not the upstream's to see. */
function upstreamFetch(request: Request): Promise<Response> {
  const headers = new Headers(request.headers)
  headers.delete('cf-connecting-ip')
  return fetch(new Request(request, { headers }))
}

/**
 * The Durable Object of one sandbox id: the same SandboxApp, route table and pipeline as the
 * Node server, serving the one sandbox the Worker routed here, kept in the object's storage
 * (src/engines/workerd/core/hosted.ts).
 */
export class SandboxObject {
  readonly #hosted: HostedSandbox
  readonly #frontKey: string | undefined
  /** Only with an upstream may a batched request have to go alone (its answer streams). */
  readonly #upstream: boolean
  /** Requests the front numbered (FRONT_REQUEST_HEADER) whose answers are under way: aborted when their caller leaves. */
  readonly #callers = new Map<string, AbortController>()

  constructor(state: ObjectState, env: WorkerEnv) {
    const options = optionsFrom(env)
    this.#frontKey = env.SANDBOX_FRONT_KEY || undefined
    this.#upstream = options.upstream !== undefined
    const { storage } = state
    this.#hosted = new HostedSandbox({
      ...options,
      idleMs: options.sandboxIdleMs,
      backend: recordBackend(storage),
      wipe: () => storage.deleteAlarm().then(() => storage.deleteAll()),
      wakeAt: (at) => storage.setAlarm(at),
      directory: (name, ...args) => call(directoryOf(env), name, ...args),
      app: (more) =>
        createServedApp({ ...options, ...more, ...(ownDefinitions() && { scenarioDefinitions: ownDefinitions() }) }),
    })
  }

  fetch(request: Request): Promise<Response> {
    if (request.headers.has(INTERNAL_HEADER)) return this.#internal(request)
    if (this.#frontKey && request.headers.get(BATCH_HEADER) === this.#frontKey) return this.#batch(request)
    const numbered = this.#upstream ? request.headers.get(FRONT_REQUEST_HEADER) : null
    return numbered ? this.#followed(request, numbered) : this.#serve(request)
  }

  /** A request the front numbered: its signal aborts when the front says its caller left, until its answer has passed. */
  async #followed(request: Request, number: string): Promise<Response> {
    const caller = new AbortController()
    this.#callers.set(number, caller)
    const forget = () => this.#callers.delete(number)
    let response: Response
    try {
      // The number is the front's, not the caller's: neither the journal nor the upstream sees it.
      const headers = new Headers(request.headers)
      headers.delete(FRONT_REQUEST_HEADER)
      response = await this.#serve(new Request(request, { headers, signal: caller.signal }))
    } catch (error) {
      forget()
      throw error
    }
    if (!response.body || !response.headers.has(UPSTREAM_HEADER)) return (forget(), response)
    // Framed for the front (FRAMED_HEADER): the last frame says the body is whole.
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (!chunk.byteLength) return
        const length = new Uint8Array(4)
        new DataView(length.buffer).setUint32(0, chunk.byteLength)
        controller.enqueue(length)
        controller.enqueue(chunk)
      },
      flush(controller) {
        controller.enqueue(new Uint8Array(4))
        forget()
      },
    })
    void response.body.pipeTo(writable).catch(forget)
    const headers = new Headers(response.headers)
    headers.set(FRAMED_HEADER, '1')
    return new Response(readable, { status: response.status, statusText: response.statusText, headers })
  }

  /**
   * The request is split once (its sandbox id with it), here or, for a batched request, by the
   * batch with the id the front read: the pipeline takes the target from `meta` and refuses a
   * malformed id with its 400.
   */
  #serve(request: Request, target = targetOf(request)): Promise<Response> {
    const id = servingId(target.sandboxId)
    // The journal keeps the control token `<redacted>` (the request keeps it for the guard).
    const rawHeaders = request.headers.has(CONTROL_TOKEN_HEADER) ? shownHeaders([...request.headers].flat()) : undefined
    return this.#hosted.fetch(request, id, {
      clientAddress: request.headers.get('cf-connecting-ip') ?? undefined,
      target,
      fetch: upstreamFetch,
      rawHeaders,
    })
  }

  /** Requests the command line's front sent together (src/engines/workerd/core/batch.ts), each served as on its own. */
  async #batch(request: Request): Promise<Response> {
    // The batch's id is the one the front sent it with; each request's is the one the front read from it.
    const id = servingId(request.headers.get(SANDBOX_ID_HEADER) ?? undefined)
    // A passthrough answer is the upstream's, of any size and pace: it goes alone, streamed.
    const serves = (one: Request, target: Target) =>
      servingId(target.sandboxId) === id && !(this.#upstream && this.#hosted.goesUpstream(one.method, target.path))
    return new Response(
      serveBatch(
        new Uint8Array(await request.arrayBuffer()),
        splitUrl(request.url).origin,
        serves,
        (one, target) => this.#serve(one, target),
        () => this.#hosted.stored(),
      ),
    )
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
      leave: (number: string) =>
        void this.#callers.get(number)?.abort(new DOMException('the caller left', 'AbortError')),
      banner: async () => summarize((await open()).sandbox),
      snapshot: async () => (await open()).sandbox.snapshot(),
      // --state as the world changes: saved when this moved (src/core/sandbox/change-count.ts).
      changes: async () => changeMark((await open()).sandbox),
      // --watch: a changed --fixtures file replaces its collection in this object's world (then stored whole).
      replaceFixtures: async (id: string, rows: FixtureRows) => {
        const live = await hosted.open(id)
        await live.app.sandboxes.replaceFixtures(rows)
        await live.stored.flush()
      },
      restore: async (state: unknown, why?: string) => {
        const live = await open()
        await live.sandbox.restore(state, why)
        await live.stored.flush()
      },
    })
  }
}
