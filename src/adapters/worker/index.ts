import { sandboxIdOf, validSandboxId } from '../../core/sandbox/sandboxes.js'
import { errorBody } from '../../core/http/reply.js'
import { INTERNAL_HEADER, OBJECT_HEADER, type WorkerEnv, objectFor, optionsFrom } from './env.js'

export { SandboxObject } from './object.js'
export { SandboxDirectory } from './directory.js'
export type { WorkerEnv } from './env.js'

/**
 * The Worker: each request goes to the Durable Object of its sandbox id (`x-sandbox-id`, else
 * cookie `sandbox-id`, else `default`), read here once and handed on in OBJECT_HEADER. A
 * malformed id goes to the default object without it, whose pipeline answers the 400 naming
 * the header.
 */
export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    try {
      optionsFrom(env)
    } catch (error) {
      // A wrong deployment variable: say which, on every request, rather than a bare 500.
      return Response.json(errorBody('standard', 500, (error as Error).message), { status: 500 })
    }
    const asked = sandboxIdOf(request)
    const valid = asked === undefined || asked === '' || validSandboxId(asked)
    const id = asked && valid ? asked : 'default'
    const headers = new Headers(request.headers)
    headers.delete(INTERNAL_HEADER)
    if (valid) headers.set(OBJECT_HEADER, id)
    else headers.delete(OBJECT_HEADER)
    return objectFor(env, id).fetch(new Request(request, { headers }))
  },
}
