import { validSandboxId } from '../../../core/sandbox/sandbox-id.js'

/**
 * The sandbox that serves a request where each sandbox lives apart (a Durable Object per id):
 * the id it names, or `default` without one or with a malformed one (whose pipeline answers the 400).
 */
export const servingId = (asked: string | undefined): string => (asked && validSandboxId(asked) ? asked : 'default')
