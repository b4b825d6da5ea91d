import type { Stage } from '../route/exchange.js'
import { bodyRead } from '../http/body.js'

/**
 * Tail: the app's conduct judged on the answer (docs/conduct.md), before the journal stage,
 * which marks the request's entry with the rules it broke (`x.conduct`). Nothing for a control
 * call, a request no route matched, or a sandbox started with `conduct: false` (`--no-conduct`).
 */
const NO_HEADERS: Record<string, string> = {}

export const conduct: Stage = {
  name: 'conduct',
  tail(x) {
    const judge = x.sandbox?.conduct
    const route = x.matched
    if (!judge || !route || route.auth.kind === 'control') return
    const reply = x.reply
    const durationMs = performance.now() - x.started
    x.conduct = judge.seen({
      // The id the journal stage gives the entry next: no await between the two.
      id: x.sandbox.journal.nextId,
      route,
      params: x.params,
      request: x.request,
      path: x.target.path,
      search: x.target.search,
      status: reply.cut ? 0 : reply.status,
      durationMs,
      headers: reply.headers ?? NO_HEADERS,
      clientAddress: x.clientAddress,
      at: Date.now() - durationMs,
      faults: x.faults,
      body: bodyRead(x.request),
    })
  },
}
