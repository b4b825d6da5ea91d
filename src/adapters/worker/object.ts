import type { SandboxApp } from '../../core/app/app.js'
import type { Evictions, Sandbox, SandboxInfo, SandboxRegistry } from '../../core/sandbox/sandbox.js'
import { summarize } from '../../core/sandbox/summary.js'
import { createSandboxApp } from '../../sandbox-app.js'
import { afterBody } from '../../core/http/drain.js'
import { httpFetch, type Incoming } from '../server/app.js'
import { servingSandbox } from '../../core/sandbox/sandbox-id.js'
import { INTERNAL_HEADER, type ObjectState, type WorkerEnv, type WorkerOptions, call, directoryOf, optionsFrom } from './env.js'
import { PersistedSandbox, type StoredMeta } from '../../core/persist/persisted.js'
import { objectBackend } from './storage.js'

type Meta = StoredMeta & { id: string; seededAt: number; createdAt: number }

interface Live {
  app: SandboxApp
  sandbox: Sandbox
  stored: PersistedSandbox
  front: (request: Request, incoming: Incoming) => Promise<Response>
  inflight: number
  lastUsed: number
}

/** What the directory asks of an object, without waking its sandbox. */
export interface ObjectInfo {
  gone?: boolean
  lastUsed: number
  inflight: number
}

/**
 * The Durable Object of one sandbox id: the same SandboxApp, route table and pipeline as the
 * Node server, serving the one sandbox the Worker routed here. Its state lives in the object's
 * storage (the persistence port, PersistedSandbox): a write stored before its answer leaves,
 * what reads change in batches, all of it reloaded after an eviction.
 */
export class SandboxObject {
  #live: Promise<Live> | undefined
  /** The started sandbox; unset while it starts (the directory may ask about it meanwhile). */
  #ready: Live | undefined
  readonly #options: WorkerOptions

  constructor(
    private readonly state: ObjectState,
    private readonly env: WorkerEnv,
  ) {
    this.#options = optionsFrom(env)
  }

  async fetch(request: Request): Promise<Response> {
    if (request.headers.has(INTERNAL_HEADER)) {
      return this.#internal(request).catch((error: Error & { status?: number }) => new Response(error.message, { status: error.status ?? 500 }))
    }
    const id = servingSandbox(request)
    await this.#expireIfIdle(id)
    const live = await this.#open(id)
    live.inflight++
    live.lastUsed = Date.now()
    try {
      // The pipeline reads the id again, and refuses a malformed one.
      const incoming = { clientAddress: request.headers.get('cf-connecting-ip') ?? undefined }
      // An early answer waits for the body it left unread (drain.ts): workerd closes a
      // connection whose request body was not read to its end, without telling the client.
      const response = await afterBody(request, live.front(request, incoming))
      // A write's changes go to storage now; the output gate holds the answer until it has them.
      // A read's (journal, sliding sessions, counters) are stored with the next batch (docs/engines.md).
      if (request.method === 'GET' || request.method === 'HEAD') live.stored.later()
      else live.stored.flush().catch((error) => console.error('fleet-sandbox: storing failed', error))
      return response
    } finally {
      live.inflight--
      live.lastUsed = Date.now()
    }
  }

  /** Idle past `sandboxIdleMs`: an isolated sandbox drops itself, as the Node server's sweep does. */
  async alarm(): Promise<void> {
    const meta = await this.state.storage.get<Meta>('meta')
    if (!meta || meta.id === 'default') return
    const info = await this.#info()
    const due = info.lastUsed + this.#options.sandboxIdleMs
    if (info.inflight > 0 || due > Date.now()) return this.state.storage.setAlarm(Math.max(due, Date.now() + 1000))
    await call(directoryOf(this.env), '/forget', { id: meta.id, reason: 'idle' })
    await this.#drop()
  }

  /** Idle past `sandboxIdleMs` though the alarm has not run yet: the id starts fresh, as on Node. */
  async #expireIfIdle(id: string): Promise<void> {
    if (id === 'default') return
    const info = await this.#info()
    if (info.gone || info.inflight > 0 || Date.now() - info.lastUsed < this.#options.sandboxIdleMs) return
    await call(directoryOf(this.env), '/forget', { id, reason: 'idle' })
    await this.#drop()
  }

  #open(id: string): Promise<Live> {
    this.#live ??= this.#start(id).then(
      (live) => (this.#ready = live),
      (error) => {
        this.#live = undefined
        throw error
      },
    )
    return this.#live
  }

  async #start(id: string): Promise<Live> {
    const storage = this.state.storage
    const meta = await storage.get<Meta>('meta')
    // Every object of a deployment seeds relative to one instant, so ids read in one sandbox
    // mean the same records in another: fixed by --now, else stored once by the directory.
    let seededAt = meta?.seededAt ?? (this.#options.now ? Date.parse(this.#options.now) : undefined)
    if (!meta) seededAt = (await call<{ seededAt: number }>(directoryOf(this.env), '/hello', { id, seededAt })).seededAt
    const registry = new Directory(this.env, this.#options.sandboxIdleMs, this.#options.maxSandboxes)
    const app = createSandboxApp({ ...this.#options, only: id, seededAt, registry })
    const sandbox = await app.ready()
    const stored = await PersistedSandbox.open(sandbox, objectBackend(storage), { meta: { id, seededAt: seededAt!, createdAt: meta?.createdAt ?? Date.now() } })
    if (id !== 'default') await storage.setAlarm(Date.now() + this.#options.sandboxIdleMs)
    return { app, sandbox, stored, front: httpFetch(app, { corsOrigins: this.#options.corsOrigins }), inflight: 0, lastUsed: Date.now() }
  }

  async #info(): Promise<ObjectInfo> {
    if (this.#ready) return { lastUsed: this.#ready.lastUsed, inflight: this.#ready.inflight }
    if (this.#live) return { lastUsed: Date.now(), inflight: 1 }
    const meta = await this.state.storage.get<Meta>('meta')
    if (!meta) return { gone: true, lastUsed: 0, inflight: 0 }
    const used = await this.state.storage.get<string>('k:used')
    return { lastUsed: used ? Number(JSON.parse(used)) : meta.createdAt, inflight: 0 }
  }

  async #drop(): Promise<void> {
    // A request still running on it finishes, but writes nothing back.
    if (this.#ready) {
      this.#ready.stored.close()
      // Its event streams end, as a dropped sandbox's do on the Node server.
      this.#ready.sandbox.events.end()
    }
    this.#live = this.#ready = undefined
    await this.state.storage.deleteAlarm()
    await this.state.storage.deleteAll()
  }

  /** Calls from the directory and the command line (`INTERNAL_HEADER`; never from outside). */
  async #internal(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname
    const body = request.method === 'POST' ? await request.json() : undefined
    if (path === '/info') return Response.json(await this.#info())
    if (path === '/drop') {
      await this.#drop()
      return Response.json({ ok: true })
    }
    // The command line: the banner, --state and --fixtures, on the default sandbox.
    const live = await this.#open('default')
    if (path === '/banner') return Response.json(summarize(live.sandbox))
    if (path === '/snapshot') return Response.json(live.sandbox.snapshot())
    if (path === '/restore') {
      await live.sandbox.restore(body)
      await live.stored.flush()
      return Response.json({ ok: true })
    }
    return new Response('no such call', { status: 404 })
  }
}

/** The sandboxes of every object, as the directory object keeps them. */
class Directory implements SandboxRegistry {
  constructor(
    private readonly env: WorkerEnv,
    readonly idleMs: number,
    readonly maxSandboxes: number,
  ) {}

  evicted(): Promise<Evictions> {
    return call<Evictions>(directoryOf(this.env), '/evicted')
  }

  list(): Promise<SandboxInfo[]> {
    return call<SandboxInfo[]>(directoryOf(this.env), '/list')
  }

  async drop(id: string): Promise<boolean> {
    return (await call<{ dropped: boolean }>(directoryOf(this.env), '/drop', { id })).dropped
  }
}
