import { sandboxIdOf, validSandboxId } from '../../core/sandbox/sandboxes.js'
import { INTERNAL_HEADER, OBJECT_HEADER, type WorkerEnv, objectFor } from './env.js'

export { SandboxObject } from './object.js'
export { SandboxDirectory } from './directory.js'
export type { WorkerEnv } from './env.js'

/**
 * The Worker: each request goes to the Durable Object of its sandbox id (`x-sandbox-id`, else
 * cookie `sandbox-id`, else `default`). A malformed id goes to the default object, whose
 * pipeline answers the 400 naming the header.
 */
export default {
  fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const asked = sandboxIdOf(request)
    const id = asked && validSandboxId(asked) ? asked : 'default'
    const headers = new Headers(request.headers)
    headers.delete(INTERNAL_HEADER)
    headers.set(OBJECT_HEADER, id)
    return objectFor(env, id).fetch(new Request(request, { headers }))
  },
}
