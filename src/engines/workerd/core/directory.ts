import type { StateBackend } from '../../../core/persist/backend.js'
import type { Evictions, SandboxInfo } from '../../../core/sandbox/sandbox.js'
import { EVICTIONS_KEPT, evictionLine } from '../../../core/sandbox/sandboxes.js'

type Reason = Evictions['recent'][number]['reason']

/** What the directory asks of a sandbox that lives apart under its id (a Durable Object), without waking it. */
export interface HostedInfo {
  gone?: boolean
  lastUsed: number
  inflight: number
}

export interface DirectoryOptions {
  idleMs: number
  maxSandboxes: number
  /** The sandbox under an id: what it reports, and dropping it with its state. */
  info(id: string): Promise<HostedInfo>
  drop(id: string): Promise<unknown>
  log?: (line: string) => void
}

/**
 * Where sandboxes live apart (one Durable Object per id), the one place that knows every
 * isolated id (GET and DELETE /__sandbox/sandboxes), drops the least recently used past
 * `maxSandboxes` and the idle past `idleMs`, as the Node server's registry does, and keeps the
 * instant every sandbox seeds relative to. Each sandbox reports its own last use.
 */
export class Directory {
  constructor(
    private readonly storage: StateBackend,
    private readonly options: DirectoryOptions,
  ) {}

  /** A sandbox starts: the deployment's seed instant (`fixed` by --now, else the first one stored). */
  async hello(id: string, fixed: number | undefined): Promise<number> {
    let seededAt = (await this.storage.get('seededAt')) as number | undefined
    if (seededAt === undefined) await this.storage.put(new Map([['seededAt', (seededAt = fixed ?? Date.now())]]))
    if (id !== 'default') {
      await this.storage.put(new Map([[`s:${id}`, Date.now()]]))
      await this.#trim(id)
    }
    return fixed ?? seededAt
  }

  /** Least recently used first, as the Node server lists them. */
  async list(): Promise<SandboxInfo[]> {
    return (await this.#list()).map(({ inflight: _, ...info }) => info)
  }

  async drop(id: string): Promise<boolean> {
    if (!(await this.#unlist(id))) return false
    await this.options.drop(id)
    return true
  }

  async evicted(): Promise<Evictions> {
    return ((await this.storage.get('evicted')) as Evictions | undefined) ?? { count: 0, recent: [] }
  }

  /** A sandbox that dropped itself (idle): no longer listed. */
  async forget(id: string, reason?: Reason): Promise<boolean> {
    if (!(await this.#unlist(id))) return false
    if (reason) await this.#evicted(id, reason)
    return true
  }

  /** Takes `id` off the list: whether it was on it. */
  async #unlist(id: string): Promise<boolean> {
    if ((await this.storage.get(`s:${id}`)) === undefined) return false
    await this.storage.delete([`s:${id}`])
    return true
  }

  async #list(): Promise<(SandboxInfo & { inflight: number })[]> {
    const ids = await this.storage.list('s:')
    const now = Date.now()
    const infos = await Promise.all(
      [...ids].map(async ([key, createdAt]) => {
        const id = key.slice(2)
        const info = await this.options.info(id)
        return info.gone
          ? undefined
          : {
              id,
              createdAt: new Date(createdAt as number).toISOString(),
              lastUsedAt: new Date(info.lastUsed).toISOString(),
              idleMs: now - info.lastUsed,
              inflight: info.inflight,
            }
      }),
    )
    // Idle past idleMs and not answering: dropped now, as the Node server's sweep does.
    for (const info of infos) {
      if (!info || info.inflight > 0 || info.idleMs < this.options.idleMs || !(await this.drop(info.id))) continue
      infos[infos.indexOf(info)] = undefined
      await this.#evicted(info.id, 'idle')
    }
    const alive = infos.filter((i) => i !== undefined)
    const gone = [...ids.keys()].filter((key) => !alive.some((i) => `s:${i.id}` === key))
    if (gone.length) await this.storage.delete(gone)
    return alive.sort((a, b) => b.idleMs - a.idleMs)
  }

  /** Evictions (not asked for) are counted and the latest kept, as the Node server lists them. */
  async #evicted(id: string, reason: Reason): Promise<void> {
    const evicted = await this.evicted()
    evicted.count++
    evicted.recent = [...evicted.recent, { id, reason, at: new Date().toISOString() }].slice(-EVICTIONS_KEPT)
    await this.storage.put(new Map([['evicted', evicted]]))
    this.options.log?.(evictionLine(id, reason, this.options))
  }

  async #trim(keep: string): Promise<void> {
    const count = (await this.storage.list('s:')).size
    let over = count - Math.max(1, this.options.maxSandboxes)
    if (over <= 0) return
    for (const info of await this.#list()) {
      if (over === 0) break
      if (info.id === keep || info.inflight > 0) continue
      await this.drop(info.id)
      await this.#evicted(info.id, 'capacity')
      over--
    }
  }
}
