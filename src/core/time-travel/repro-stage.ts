import type { Stage } from '../route/exchange.js'
import { bodyRead } from '../http/body.js'

/** What a repro bundle replays (repro-log.ts): the write, its body and its account, at the path the route table saw. */
export const repro: Stage = {
  name: 'repro',
  tail(x) {
    const sandbox = x.sandbox
    if (!sandbox || !x.matched) return
    sandbox.repro.request(
      sandbox,
      x.matched,
      x.request,
      x.target.path,
      x.target.search,
      x.reply,
      x.principal,
      x.at,
      bodyRead(x.request),
      x.applied.length > 0,
    )
  },
}
