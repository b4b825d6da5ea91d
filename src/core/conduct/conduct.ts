import type { Judged, Rule, Seen } from './rules.js'
import type { Counts, Judge } from './judge.js'

export type { Finding, Judged, Rule, Seen } from './rules.js'
export { MAX_FINDINGS, MAX_ROWS } from './rules.js'

/** Operations that hand out a new credential: a sign-in ends a loop on 401. */
const SIGN_INS: ReadonlySet<string> = new Set(['signInEmail', 'portalVerify', 'oauthToken'])
/** Failures a world keeps while the judge loads (the first milliseconds of a page), and their bytes. */
const MAX_WAITING = 256
const MAX_WAITING_BYTES = 64 * 1024

/** The judge's module, loaded once for every world, at the first world's start (judge.ts). */
let judgeClass: typeof Judge | undefined
let loading: Promise<unknown> | undefined
/** Worlds holding failures for the judge: judged once it loads, not kept until their next request. */
const waitingWorlds = new Set<Conduct>()
const load = () =>
  (loading ??= import('./judge.js').then(
    (m) => {
      judgeClass = m.Judge
      for (const world of waitingWorlds) world.judgeWaiting()
    },
    () => (loading = undefined),
  ))

/**
 * A failure as it waits for the judge: what the rules read of it (its headers, not the request,
 * which holds its URL and body however the journal cut them), and its bytes.
 */
function waitingCopy(s: Seen): [Seen, number] {
  const { headers } = s.request
  let bytes = 512 + s.path.length + s.search.length + (s.body?.byteLength ?? 0)
  for (const [name, value] of headers) bytes += name.length + value.length
  return [{ ...s, request: { headers }, body: s.body?.slice() }, bytes]
}

/**
 * A world's conduct (docs/conduct.md): which statuses and scenarios each operation met, counted
 * on every request, and the spec's retry rules judged on its rows of attempts by a judge made on
 * its first failure answer (judge.ts, loaded on first use). A success in a world that never
 * failed touches two maps.
 */
export class Conduct {
  /** operationId → status → the first request that met it. */
  #statuses = new Map<string, Map<number, number>>()
  /** operationId → scenario (a fault's name) → the first request it shaped. */
  #faults = new Map<string, Map<string, number>>()
  readonly #counts: Counts = { signIns: 0, writes: 0 }
  #judge: Judge | undefined
  /** Failures seen before the judge's module was there (bounded: MAX_WAITING, MAX_WAITING_BYTES), judged when it is. */
  #waiting: Seen[] | undefined
  #waitingBytes = 0

  constructor() {
    if (!judgeClass) void load()
  }

  /** The world's judge made once its module is there, and the failures that waited for it judged in order. */
  judgeWaiting(): Judge {
    const judge = (this.#judge = new judgeClass!(this.#counts))
    for (const w of this.#waiting ?? []) judge.seen(w)
    this.#forget()
    return judge
  }

  #forget(): void {
    this.#waiting = undefined
    this.#waitingBytes = 0
    waitingWorlds.delete(this)
  }

  clear(): void {
    this.#statuses.clear()
    this.#faults.clear()
    this.#judge = undefined
    this.#forget()
  }

  /** The rules broken, oldest first, as judged (their messages are written by messages.ts `findingOf`). */
  get findings(): readonly Judged[] {
    return this.#judge?.findings ?? []
  }

  /** Rows of attempts followed now (at most MAX_ROWS). */
  get rows(): number {
    return this.#judge?.rows ?? 0
  }

  /** Statuses met per operation, with the first request of each. */
  get statuses(): ReadonlyMap<string, ReadonlyMap<number, number>> {
    return this.#statuses
  }

  get faults(): ReadonlyMap<string, ReadonlyMap<string, number>> {
    return this.#faults
  }

  /** Resolves once the judge's module is loaded (tests; a request never waits for it). */
  static async ready(): Promise<void> {
    await load()
  }

  /** Counts one request and judges it; answers the rules it broke (its journal entry is marked with them), or none. */
  seen(s: Seen): Rule[] | undefined {
    const { route, status } = s
    let met = this.#statuses.get(route.id)
    if (!met) this.#statuses.set(route.id, (met = new Map()))
    if (!met.has(status)) met.set(status, s.id)
    if (s.faults.length) {
      let shaped = this.#faults.get(route.id)
      if (!shaped) this.#faults.set(route.id, (shaped = new Map()))
      for (const f of s.faults) if (!shaped.has(f)) shaped.set(f, s.id)
    }
    const failed = status === 0 || status >= 400
    if (!failed) {
      if (SIGN_INS.has(route.id)) this.#counts.signIns++
      if (route.method !== 'GET') this.#counts.writes++
    }
    if (this.#judge) return this.#judge.seen(s)
    // Before a world's first failure, there is nothing to judge.
    if (!failed && !this.#waiting) return undefined
    if (judgeClass) return this.judgeWaiting().seen(s)
    // The module is on its way: the request waits for it, judged in order once it is there. Bounded
    // by count and bytes (a request holds its URL, headers and body): one past either is counted, not judged.
    const [copy, bytes] = waitingCopy(s)
    const waiting = (this.#waiting ??= [])
    if (waiting.length < MAX_WAITING && this.#waitingBytes + bytes <= MAX_WAITING_BYTES) {
      waiting.push(copy)
      this.#waitingBytes += bytes
      waitingWorlds.add(this)
    }
    void load()
    return undefined
  }
}
