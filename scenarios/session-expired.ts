import * as z from 'zod'
import { HttpError } from '../src/core/http/reply.js'
import type { RouteContext } from '../src/core/route/route.js'
import { defineScenario } from '../src/core/scenarios/define.js'

const options = z.strictObject({
  /** Lifetime in seconds of sessions signed in while the scenario is on (default: the usual 30 days). */
  ttl: z
    .number({ error: 'must be a number of seconds' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(90 * 86_400, 'must be at most 7776000 (90 days)')
    .optional(),
})
export type SessionExpiredOptions = z.infer<typeof options>

const EXPIRED = 'authorization: the session has expired; sign in again'

const bearer = (ctx: RouteContext) => /^Bearer\s+(\S+)/i.exec(ctx.request.headers.get('authorization') ?? '')?.[1]

const sessionToken = (ctx: RouteContext) => {
  const token = bearer(ctx)
  return token && ctx.sandbox.sessions.get(token) ? token : undefined
}

/** The grant of an agent JWT (docs/agents.md), read without verifying: the pipeline verifies it. */
const agentGrant = (ctx: RouteContext): string | undefined => {
  try {
    const claims = JSON.parse(atob(bearer(ctx)!.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')))
    return claims.kind === 'agent' ? `grant:${claims.grant}` : undefined
  } catch {
    return undefined
  }
}

/**
 * Switched on for the sandbox, it expires every session and agent access token that exists at
 * that moment (state: they stay expired when it is switched off; agents' refresh tokens work). Named in `x-sandbox-scenario`, it changes no state:
 * that one request is answered as if the caller's session had expired. Sign-in honours `ttl`
 * either way: a sign-in's new session gets that lifetime.
 */
export default defineScenario({
  name: 'session-expired',
  description:
    'every session and agent access token that exists when it turns on is expired (401; agents may refresh); new sign-ins work, with lifetime ttl (seconds) if given; per request (x-sandbox-scenario) only that request answers 401',
  advice:
    'On 401 drop the token, send the user to sign-in keeping where they were (return URL, unsaved input), retry the read after the new sign-in, and never loop on 401',
  options,
  order: 30,
  appliesTo: (route) => route.auth.kind === 'user',
  activate(sandbox) {
    const now = sandbox.clock.now()
    sandbox.sessions.expireAll(now)
    const grants = sandbox.oauth.grants.filter((g) => g.revokedAt === null && g.accessExpiresAt > now)
    for (const g of grants) g.accessExpiresAt = now
    if (grants.length) sandbox.oauth.version++
    sandbox.scenarioState.set(
      'session-expired',
      new Set([...sandbox.sessions.all().map((s) => s.token), ...grants.map((g) => `grant:${g.id}`)]),
    )
  },
  edge(ctx) {
    if (ctx.route.auth.kind !== 'user') return undefined
    const global = ctx.sandbox.inForce().some((a) => a.name === 'session-expired')
    if (global || !(sessionToken(ctx) || agentGrant(ctx))) return undefined
    ctx.fault('session-expired')
    throw new HttpError(401, EXPIRED)
  },
  after(ctx, reply, options) {
    if (ctx.route.id === 'signInEmail' && reply.status === 200 && options.ttl !== undefined) {
      const session = ctx.sandbox.sessions.get(reply.headers?.['set-auth-token'] ?? '')
      if (session) {
        session.ttlMs = options.ttl * 1000
        session.expiresAt = session.lastSeenAt + session.ttlMs
      }
    }
    const expired = ctx.sandbox.scenarioState.get('session-expired') as Set<string> | undefined
    const token = reply.status === 401 ? (sessionToken(ctx) ?? agentGrant(ctx)) : undefined
    if (token && expired?.has(token)) ctx.fault('session-expired')
    return reply
  },
})
