import type { Judged, Rule, Seen } from './rules.js'
import type { Counts, Judge } from './judge.js'

export type { Finding, Judged, Rule, Seen } from './rules.js'
export { MAX_FINDINGS, MAX_ROWS } from './rules.js'

/** Operations that hand out a new credential: a sign-in ends a loop on 401. */
const SIGN_INS: ReadonlySet<string> = new Set(['signInEmail', 'portalVerify', 'oauthToken'])
/** Failures a world keeps while the judge loads (the first milliseconds of a page). */
const MAX_WAITING = 256

/** The judge's module, loaded once for every world, at the first world's start (judge.ts). */
let judgeClass: typeof Judge | undefined
let loading: Promise<unknown> | undefined
const load = () =>
  (loading ??= import('./judge.js').then(
    (m) => (judgeClass = m.Judge),
    () => (loading = undefined),
  ))

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
  /** Failures seen before the judge's module was there, judged when it is. */
  #waiting: Seen[] | undefined

  constructor() {
    if (!judgeClass) void load()
  }

  clear(): void {
    this.#statuses.clear()
    this.#faults.clear()
    this.#judge = undefined
    this.#waiting = undefined
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
    if (judgeClass) {
      this.#judge = new judgeClass(this.#counts)
      for (const w of this.#waiting ?? []) this.#judge.seen(w)
      this.#waiting = undefined
      return this.#judge.seen(s)
    }
    // The module is on its way: the request waits for it (bounded), judged in order with the next one after it came.
    if ((this.#waiting ??= []).length < MAX_WAITING) this.#waiting.push(s)
    void load()
    return undefined
  }
}
