import type { Evictions, SandboxInfo } from '../../core/sandbox/sandbox.js'
import { type ObjectState, type WorkerEnv, call, objectFor, optionsFrom } from './env.js'
import type { ObjectInfo } from './object.js'

type Reason = Evictions['recent'][number]['reason']
const EVICTIONS_KEPT = 100

/**
 * The one object that knows every isolated sandbox of the deployment (GET and DELETE
 * /__sandbox/sandboxes), drops the least recently used past `maxSandboxes`, and holds the
 * instant every object seeds relative to. Each sandbox object reports its own last use.
 */
export class SandboxDirectory {
  constructor(
    private readonly state: ObjectState,
    private readonly env: WorkerEnv,
  ) {}

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname
    const body = (request.method === 'POST' ? await request.json() : {}) as { id: string; seededAt?: number; reason?: Reason }
    if (path === '/hello') return Response.json({ seededAt: await this.#hello(body.id, body.seededAt) })
    if (path === '/list') return Response.json((await this.#list()).map(({ inflight: _, ...info }) => info))
    if (path === '/drop') return Response.json({ dropped: await this.#drop(body.id) })
    if (path === '/evicted') return Response.json((await this.state.storage.get<Evictions>('evicted')) ?? { count: 0, recent: [] })
    if (path === '/forget') {
      const forgotten = (await this.state.storage.delete([`s:${body.id}`])) > 0
      if (forgotten && body.reason) await this.#evicted(body.id, body.reason)
      return Response.json({ forgotten })
    }
    return new Response('no such call', { status: 404 })
  }

  async #hello(id: string, fixed: number | undefined): Promise<number> {
    const storage = this.state.storage
    let seededAt = await storage.get<number>('seededAt')
    if (seededAt === undefined) await storage.put({ seededAt: (seededAt = fixed ?? Date.now()) })
    if (id !== 'default') {
      await storage.put({ [`s:${id}`]: Date.now() })
      await this.#trim(id)
    }
    return fixed ?? seededAt
  }

  /** Least recently used first, as the Node server lists them. */
  async #list(): Promise<(SandboxInfo & { inflight: number })[]> {
    const ids = await this.state.storage.list<number>({ prefix: 's:' })
    const now = Date.now()
    const infos = await Promise.all([...ids].map(async ([key, createdAt]) => {
      const id = key.slice(2)
      const info = await call<ObjectInfo>(objectFor(this.env, id), '/info')
      return info.gone ? undefined : { id, createdAt: new Date(createdAt).toISOString(), lastUsedAt: new Date(info.lastUsed).toISOString(), idleMs: now - info.lastUsed, inflight: info.inflight }
    }))
    // Idle past sandboxIdleMs and not answering: dropped now, as the Node server's sweep does.
    const idleMs = optionsFrom(this.env).sandboxIdleMs
    for (const info of infos) {
      if (!info || info.inflight > 0 || info.idleMs < idleMs || !(await this.#drop(info.id))) continue
      infos[infos.indexOf(info)] = undefined
      await this.#evicted(info.id, 'idle')
    }
    const alive = infos.filter((i) => i !== undefined)
    const gone = [...ids.keys()].filter((key) => !alive.some((i) => `s:${i.id}` === key))
    if (gone.length) await this.state.storage.delete(gone)
    return alive.sort((a, b) => b.idleMs - a.idleMs)
  }

  async #drop(id: string): Promise<boolean> {
    if ((await this.state.storage.delete([`s:${id}`])) === 0) return false
    await call(objectFor(this.env, id), '/drop', {})
    return true
  }

  /** Evictions (not asked for) are counted and the latest kept, as the Node server lists them. */
  async #evicted(id: string, reason: Reason): Promise<void> {
    const evicted = (await this.state.storage.get<Evictions>('evicted')) ?? { count: 0, recent: [] }
    evicted.count++
    evicted.recent = [...evicted.recent, { id, reason, at: new Date().toISOString() }].slice(-EVICTIONS_KEPT)
    await this.state.storage.put({ evicted })
    const options = optionsFrom(this.env)
    const why = reason === 'idle' ? `unused for ${options.sandboxIdleMs / 1000} s (--sandbox-idle)` : `the least recently used of ${options.maxSandboxes} (--max-sandboxes)`
    options.log?.(`sandbox "${id}" evicted with its state: ${why}`)
  }

  async #trim(keep: string): Promise<void> {
    const max = Math.max(1, optionsFrom(this.env).maxSandboxes)
    const count = (await this.state.storage.list({ prefix: 's:' })).size
    if (count <= max) return
    let over = count - max
    for (const info of await this.#list()) {
      if (over === 0) break
      if (info.id === keep || info.inflight > 0) continue
      await this.#drop(info.id)
      await this.#evicted(info.id, 'capacity')
      over--
    }
  }
}
