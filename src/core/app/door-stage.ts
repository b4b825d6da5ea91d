import { guardControl } from '../control/origin.js'
import { errorBody, errorReply, notFound, type Reply } from '../http/reply.js'
import type { Exchange, Stage } from '../route/exchange.js'
import { controlPath } from '../route/matcher.js'

/**
 * The door: a foreign page's request to the control API is refused before it creates a sandbox
 * or reads a body (every /__sandbox path, matched or not); then the request's sandbox
 * (`x-sandbox-id`) is taken, and a request no route matches is answered 404 (405 with `allow`).
 */
export const door: Stage = {
  name: 'door',
  answer(x) {
    const route = x.matched
    if (route ? route.auth.kind === 'control' : controlPath(x.target.path))
      guardControl(x.request, x.app.origins, x.target.origin, route?.auth.kind === 'control' && route.auth.page)
    return held(x, x.app.sandboxFor(x.meta, x.target))
  },
}

async function held(x: Exchange, sandbox: Promise<Sandbox>): Promise<Reply | undefined> {
  x.sandbox = await sandbox
  return x.matched ? undefined : unmatchedReply(x.request.method, x.target.path, x.allowed!)
}

type Sandbox = Exchange['sandbox']

/** 404 and 405 answers for requests no route matches, in the standard error shape. */
function unmatchedReply(method: string, path: string, allowed: readonly string[]): Reply {
  if (!allowed.length) return errorReply(undefined, notFound(`path: no route ${method} ${path}`))
  const list = allowed.join(', ')
  return {
    status: 405,
    body: errorBody('standard', 405, `method: ${method} is not allowed on ${path}; allowed: ${list}`),
    headers: { allow: list },
  }
}
