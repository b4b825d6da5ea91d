import { Sandbox, type SandboxConfig } from './sandbox.js'

export interface SandboxesOptions extends SandboxConfig {
  /** Isolated sandboxes unused this long are dropped (default 30 minutes). */
  idleMs?: number
  /** At most this many isolated sandboxes; the least recently used goes first (default 200). */
  max?: number
}

export const SANDBOX_ID_HEADER = 'x-sandbox-id'
const ID_PATTERN = /^[\w.:-]{1,128}$/

/** Which sandbox a request selects: `x-sandbox-id`, else cookie `sandbox-id`, else the default. */
export function sandboxIdOf(request: Request): string | undefined {
  const header = request.headers.get(SANDBOX_ID_HEADER)
  if (header !== null) return header.trim()
  const cookie = request.headers.get('cookie')
  if (!cookie) return undefined
  const m = /(?:^|;\s*)sandbox-id=([^;]*)/.exec(cookie)
  return m ? decodeURIComponent(m[1]).trim() : undefined
}

export const validSandboxId = (id: string) => ID_PATTERN.test(id)

/** The default sandbox and every isolated one, created on first use from the same seed. */
export class Sandboxes {
  readonly default: Promise<Sandbox>
  #isolated = new Map<string, Promise<Sandbox>>()

  constructor(readonly options: SandboxesOptions) {
    this.default = Sandbox.create('default', options)
  }

  async get(id: string | undefined): Promise<Sandbox> {
    if (id === undefined || id === '' || id === 'default') return this.default
    let pending = this.#isolated.get(id)
    if (pending) {
      // Map order doubles as recency for eviction.
      this.#isolated.delete(id)
      this.#isolated.set(id, pending)
    } else {
      this.#evict()
      const base = await this.default
      pending = Sandbox.create(id, { ...this.options, seed: base.seed })
      this.#isolated.set(id, pending)
    }
    const sandbox = await pending
    sandbox.lastUsed = Date.now()
    return sandbox
  }

  ids(): string[] {
    return [...this.#isolated.keys()]
  }

  drop(id: string): boolean {
    return this.#isolated.delete(id)
  }

  #evict(): void {
    const idleMs = this.options.idleMs ?? 30 * 60_000
    const max = this.options.max ?? 200
    const now = Date.now()
    for (const [id, pending] of this.#isolated) {
      void pending.then((s) => {
        if (now - s.lastUsed > idleMs && this.#isolated.get(id) === pending) this.#isolated.delete(id)
      })
    }
    while (this.#isolated.size >= max) this.#isolated.delete(this.#isolated.keys().next().value!)
  }
}
