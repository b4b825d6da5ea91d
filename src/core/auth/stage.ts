import type { Stage } from '../route/exchange.js'
import { authorize } from './guard.js'

/** The guard every route passes: its auth rule, the caller's principal set on the context (guard.ts). */
export const auth: Stage = {
  name: 'auth',
  answer: (x) => authorize(x.route, x, (x.app.options.control || undefined)?.token),
}
