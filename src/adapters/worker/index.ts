import { sandboxIdOf, validSandboxId } from '../../core/sandbox/sandboxes.js'
import { HttpError, errorBody } from '../../core/http/reply.js'
import { guardControl } from '../../core/control/origin.js'
import { INTERNAL_HEADER, OBJECT_HEADER, type WorkerEnv, objectFor, optionsFrom } from './env.js'

export { SandboxObject } from './object.js'
export { SandboxDirectory } from './directory.js'
export type { WorkerEnv } from './env.js'

const CONTROL_PATH = /^\/__sandbox(\/|$)/i
const PANEL_PATH = /^\/__sandbox\/?$/i

/**
 * The Worker: each request goes to the Durable Object of its sandbox id (`x-sandbox-id`, else
 * cookie `sandbox-id`, else `default`). A malformed id goes to the default object, whose
 * pipeline answers the 400 naming the header.
 */
export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    let options
    try {
      options = optionsFrom(env)
    } catch (error) {
      // A wrong deployment variable: say which, on every request, rather than a bare 500.
      return Response.json(errorBody('standard', 500, (error as Error).message), { status: 500 })
    }
    // Here too, not only in the object's pipeline: opening an object creates its sandbox.
    const url = new URL(request.url)
    if (CONTROL_PATH.test(url.pathname)) {
      try {
        guardControl(request, { corsOrigins: options.corsOrigins, token: (options.control || undefined)?.token }, url.origin, PANEL_PATH.test(url.pathname))
      } catch (error) {
        const e = error as HttpError
        return Response.json(errorBody('standard', e.status, e.message), { status: e.status, headers: { vary: 'Origin' } })
      }
    }
    const asked = sandboxIdOf(request)
    const id = asked && validSandboxId(asked) ? asked : 'default'
    const headers = new Headers(request.headers)
    headers.delete(INTERNAL_HEADER)
    headers.set(OBJECT_HEADER, id)
    return objectFor(env, id).fetch(new Request(request, { headers }))
  },
}
