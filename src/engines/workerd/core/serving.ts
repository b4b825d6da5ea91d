import { sandboxIdOf, validSandboxId } from '../../../core/sandbox/sandbox-id.js'

/**
 * The sandbox that serves a request where each sandbox lives apart (a Durable Object per id):
 * the id it names, or `default` without one or with a malformed one (whose pipeline answers the 400).
 */
export const servingId = (asked: string | undefined): string => (asked && validSandboxId(asked) ? asked : 'default')

/** `servingId` of the id a request names (`x-sandbox-id`, else cookie `sandbox-id`). */
export const servingSandbox = (request: Request): string => servingId(sandboxIdOf(request))
