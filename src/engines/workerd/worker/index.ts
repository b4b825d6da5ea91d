import { servingId } from '../core/serving.js'
import { targetOf } from '../../../core/http/url.js'
import { HttpError, errorBody } from '../../../core/http/reply.js'
import { guardControl } from '../../../core/control/origin.js'
import { controlPath } from '../../../core/route/matcher.js'
import { INTERNAL_HEADER, type WorkerEnv, objectFor, optionsFrom } from './env.js'

export { SandboxObject } from './object.js'
export { SandboxDirectory } from './directory-object.js'
export type { WorkerEnv } from './env.js'
export { useScenarios } from '../../../own-scenarios/worker.js'
// What a scenario file imports from `fleet-sandbox`, resolved to this module on workerd (src/own-scenarios/worker-modules.ts).
export { defineScenario } from '../../../core/scenarios/define.js'
export { HttpError } from '../../../core/http/reply.js'

const PANEL_PATH = /^\/__sandbox\/?$/

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
    // Split once in this isolate (the object, an isolate of its own, splits it again).
    const target = targetOf(request)
    if (controlPath(target.path)) {
      try {
        guardControl(
          request,
          { corsOrigins: options.corsOrigins, token: (options.control || undefined)?.token },
          target.origin,
          PANEL_PATH.test(target.path),
        )
      } catch (error) {
        const e = error as HttpError
        return Response.json(errorBody('standard', e.status, e.message), {
          status: e.status,
          headers: { vary: 'Origin' },
        })
      }
    }
    // Handed on as it came (the object reads the id again): a copy per request costs workerd
    // more than the read (bench/workerd.mjs). Only a caller posing as the Worker's own calls is copied.
    const id = servingId(target.sandboxId)
    if (!request.headers.has(INTERNAL_HEADER)) return objectFor(env, id).fetch(request)
    const headers = new Headers(request.headers)
    headers.delete(INTERNAL_HEADER)
    return objectFor(env, id).fetch(new Request(request, { headers }))
  },
}
