import type { Exchange, Stage } from '../route/exchange.js'
import { overrideReply } from './answer.js'
import type { RouteOverrides } from './overrides.js'

/** A world's own answers (docs/your-own-answers.md): only this route's are looked at (an index by operation). */
function ofRoute(x: Exchange): RouteOverrides | undefined {
  const overrides = x.sandbox.overrides
  return overrides.size > 0 && x.route.auth.kind !== 'control' ? overrides.of(x.route.id) : undefined
}

/** An override that answers before anything else, the caller unknown (`match.anonymous`). */
export const anonymousOverrides: Stage = {
  name: 'overrides-anonymous',
  answer(x) {
    const overrides = ofRoute(x)
    return overrides?.anonymous ? overrideReply(overrides, x, true) : undefined
  },
}

/** An override that answers a signed-in caller, after auth. */
export const signedInOverrides: Stage = {
  name: 'overrides',
  answer(x) {
    const overrides = ofRoute(x)
    return overrides?.signedIn ? overrideReply(overrides, x, false) : undefined
  },
}
