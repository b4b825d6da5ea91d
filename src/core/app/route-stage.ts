import type { Reply } from '../http/reply.js'
import type { Exchange, Stage } from '../route/exchange.js'

/**
 * The route's handler. A write runs alone in its sandbox and sees one instant (the one a repro
 * bundle keeps for it, so a replay writes the same dates); what it changed is taken before the
 * next write may start, for its journal entry.
 */
export const route: Stage = {
  name: 'route',
  answer(x) {
    if (x.request.method === 'GET') return x.route.handler(x)
    const sandbox = x.sandbox
    return sandbox.exclusive(() =>
      sandbox.clock.pinned(
        () => written(x),
        (at) => (x.at = at),
      ),
    )
  },
}

async function written(x: Exchange): Promise<Reply> {
  try {
    return await x.route.handler(x)
  } finally {
    x.changes = x.sandbox.changes.take()
  }
}
