import type { RequestMeta, SandboxApp } from '../../../core/app/app.js'
import type { HostedInfo } from './directory.js'
import type { Sandbox, SandboxRegistry } from '../../../core/sandbox/sandbox.js'
import type { StateBackend } from '../../../core/persist/backend.js'
import { PersistedSandbox, type StoredMeta } from '../../../core/persist/persisted.js'

type Meta = StoredMeta & { id: string; seededAt: number; createdAt: number }
type DirectoryCall = 'hello' | 'forget' | 'list' | 'drop' | 'evicted'

/** What a runtime gives the sandbox it hosts apart (a Durable Object per id). */
export interface HostOptions {
  /** The runtime's storage, and how to wipe it (and its alarm) when the sandbox is dropped. */
  backend: StateBackend
  wipe(): Promise<void>
  /** Wakes the host at an instant (an alarm), to drop itself once idle. */
  wakeAt(at: number): Promise<void>
  idleMs: number
  maxSandboxes: number
  /** `--now`: the seed instant of every sandbox; else the directory's. */
  now?: string
  /** The deployment's directory (src/engines/workerd/core/directory.ts), however the runtime reaches it. */
  directory<T>(name: DirectoryCall, ...args: unknown[]): Promise<T>
  /** The app of the one sandbox: its `fetch` is the whole HTTP contract (CORS, the unread body). */
  app(options: { only: string; seededAt: number; registry: SandboxRegistry }): SandboxApp
}

interface Live {
  sandbox: Sandbox
  stored: PersistedSandbox
  app: SandboxApp
  inflight: number
  lastUsed: number
}

/**
 * One sandbox hosted apart, kept in its runtime's storage through the persistence port: a
 * write is stored before its answer leaves, what reads change goes in batches
 * (docs/engines.md), and all of it is reloaded after an eviction. Idle past `idleMs`, an
 * isolated sandbox drops itself, as the Node server's sweep does.
 */
export class HostedSandbox {
  #live: Promise<Live> | undefined
  /** The started sandbox; unset while it starts (the directory may ask about it meanwhile). */
  #ready: Live | undefined

  /** Writes being stored: nothing the sandbox answers leaves before they are (`stored`). */
  readonly #storing = new Set<Promise<void>>()

  constructor(private readonly host: HostOptions) {}

  /**
   * Resolves once the writes being stored now are: what a Durable Object's output gate does
   * for a whole answer, for answers that stream out one by one (a batch's, src/engines/workerd/core/batch.ts).
   */
  stored(): Promise<unknown> {
    return this.#storing.size ? Promise.all(this.#storing) : Promise.resolve()
  }

  /**
   * Whether a request goes to the upstream (`--upstream`), as the app decides it: such an answer
   * streams, so it never rides in a batch. Before the app is up nobody knows: it may.
   */
  goesUpstream(method: string, path: string): boolean {
    const app = this.#ready?.app
    return app ? app.goesUpstream(method, path) : true
  }

  async fetch(request: Request, id: string, meta: RequestMeta): Promise<Response> {
    await this.#expireIfIdle(id)
    const live = await this.open(id)
    live.inflight++
    live.lastUsed = Date.now()
    try {
      const response = cutMarked(await live.app.fetch(request, meta))
      // A write's changes are stored now, and its answer waits for them (a Durable Object's
      // output gate holds answers meanwhile too, but a batch's answers stream out one by one:
      // src/engines/workerd/core/batch.ts); a read's (journal, sliding sessions, counters) with the next batch.
      const stored = live.stored
        .answered(request.method)
        .catch((error) => console.error('fleet-sandbox: storing failed', error))
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        this.#storing.add(stored)
        await stored
        this.#storing.delete(stored)
      }
      return response
    } finally {
      live.inflight--
      live.lastUsed = Date.now()
    }
  }

  /** The host's alarm: drops the sandbox once idle, else wakes again when it may be. */
  async alarm(): Promise<void> {
    const meta = (await this.host.backend.get('meta')) as Meta | undefined
    if (!meta || meta.id === 'default') return
    const info = await this.info()
    const due = info.lastUsed + this.host.idleMs
    if (info.inflight > 0 || due > Date.now()) return this.host.wakeAt(Math.max(due, Date.now() + 1000))
    await this.#forget(meta.id)
  }

  /** Idle past `idleMs` though the alarm has not run yet: the id starts fresh, as on Node. */
  async #expireIfIdle(id: string): Promise<void> {
    if (id === 'default') return
    const info = await this.info()
    if (!info.gone && info.inflight === 0 && Date.now() - info.lastUsed >= this.host.idleMs) await this.#forget(id)
  }

  async #forget(id: string): Promise<void> {
    await this.host.directory('forget', id, 'idle')
    await this.drop()
  }

  open(id: string): Promise<Live> {
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
    const { host } = this
    const meta = (await host.backend.get('meta')) as Meta | undefined
    // Every sandbox of a deployment seeds relative to one instant, so ids read in one sandbox
    // mean the same records in another: fixed by --now, else stored once by the directory.
    const seededAt =
      meta?.seededAt ?? (await host.directory<number>('hello', id, host.now ? Date.parse(host.now) : undefined))
    // The other sandboxes live in other hosts: the directory knows them.
    const registry: SandboxRegistry = {
      idleMs: host.idleMs,
      maxSandboxes: host.maxSandboxes,
      list: () => host.directory('list'),
      drop: (other) => host.directory('drop', other),
      evicted: () => host.directory('evicted'),
    }
    const app = host.app({ only: id, seededAt, registry })
    const sandbox = await app.ready()
    const stored = await PersistedSandbox.open(sandbox, host.backend, {
      meta: { id, seededAt, createdAt: meta?.createdAt ?? Date.now() },
      journalInBatches: true,
    })
    if (id !== 'default') await host.wakeAt(Date.now() + host.idleMs)
    return { sandbox, stored, app, inflight: 0, lastUsed: Date.now() }
  }

  /** Stores what waits for the batch now (the command line stops cleanly: nothing is lost). */
  async flush(): Promise<void> {
    await this.#ready?.stored.flush()
  }

  /** What the directory asks, without waking the sandbox. */
  async info(): Promise<HostedInfo> {
    if (this.#ready) return { lastUsed: this.#ready.lastUsed, inflight: this.#ready.inflight }
    if (this.#live) return { lastUsed: Date.now(), inflight: 1 }
    const meta = (await this.host.backend.get('meta')) as Meta | undefined
    if (!meta) return { gone: true, lastUsed: 0, inflight: 0 }
    const used = (await this.host.backend.get('k:used')) as string | undefined
    return { lastUsed: used ? Number(JSON.parse(used)) : meta.createdAt, inflight: 0 }
  }

  /** Dropped with its storage: a request still running finishes but writes nothing back; its event streams end. */
  async drop(): Promise<void> {
    this.#ready?.stored.close()
    this.#ready?.sandbox.events.end()
    this.#live = this.#ready = undefined
    await this.host.wipe()
  }
}

/**
 * With an upstream, the front numbers each request it sends alone, and tells the object when
 * its caller left (`leave`): workerd does not notice a caller gone while an upstream body is
 * silent, and the object then aborts the upstream's request itself.
 */
export const FRONT_REQUEST_HEADER = 'x-sandbox-front-request'
/**
 * Marks an upstream's answer to a numbered request as framed: each chunk after its length (4
 * bytes, big-endian), then a length 0 once the body is whole. workerd ends a body that failed
 * (an upstream gone silent past its bound) as if it were whole; the front, missing the last
 * frame, cuts the caller's connection instead.
 */
export const FRAMED_HEADER = 'x-sandbox-framed'

/** How an object tells the front to cut the caller's connection (an override's `{error: "network"}`): workerd sends no error response. */
export const CUT_HEADER = 'x-sandbox-cut'

/** A deployed Worker has no front: its caller sees this 502, marked, instead of a cut connection (docs/your-own-answers.md). */
function cutMarked(response: Response): Response {
  if (response.type !== 'error') return response
  return new Response(
    JSON.stringify({
      statusCode: 502,
      message: 'override: the connection is cut (respond.error "network")',
      error: 'Bad Gateway',
    }),
    { status: 502, headers: { 'content-type': 'application/json', [CUT_HEADER]: '1' } },
  )
}
