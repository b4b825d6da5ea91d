import { defineRoute } from '../route/route.js'
import { HttpError, ok } from '../http/reply.js'
import { Clock } from '../clock/clock.js'
import { AGENT_SCOPE, AGENT_TTL_S, signToken } from '../auth/tokens.js'
import { CONTROL_TOKEN_HEADER } from '../auth/guard.js'
import { PORTAL_TOKEN_TTL_S } from '../billing/magic-links.js'
import { readBody } from '../http/body.js'
import { MAX_JSON_DEPTH, deeperThan } from '../http/json-depth.js'
import { validate } from '../http/validate.js'
import { REPLAYED_CONTROL, REPRO_BODY_LIMIT, REPRO_MAX_STEPS } from './repro-log.js'
import { randomToken } from '../clock/random.js'
import { WORLD_PARTS, credentialTokens, revealed, writeParts } from '../sandbox/parts.js'
import { checkBounds } from '../sandbox/snapshot.js'
import * as z from 'zod'
import { REPRO_READS } from './version.js'
import type { ReplayKit, StepKind } from './replay.js'
import type { RouteContext } from '../route/route.js'

const control = { kind: 'control' } as const
const tag = 'sandbox control'

// The bundle's builder and its replay are loaded on first use: a page that never asks carries neither (the browser entry's budget).
// What they use of the entry's own modules is handed in (replay.ts: ReplayKit).
const kit: ReplayKit = {
  readBody,
  validate,
  deeperThan,
  signToken,
  limits: { maxSteps: REPRO_MAX_STEPS, bodyLimit: REPRO_BODY_LIMIT, jsonDepth: MAX_JSON_DEPTH },
  agent: { scope: AGENT_SCOPE, ttlS: AGENT_TTL_S },
  portalTtlS: PORTAL_TOKEN_TTL_S,
  controlHeader: CONTROL_TOKEN_HEADER,
  refuse: (status, message) => new HttpError(status, message),
  Clock,
  mint: () => randomToken('mnt_', 16),
  parts: WORLD_PARTS,
  writeParts,
  revealed,
  credentialTokens,
  checkBounds,
}

const moment = z
  .object({
    // Two parameters no schema of OpenAPI's joins: the rule is said on each.
    before: z.coerce
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'The world just before this journal entry; not with after (a 400)' }),
    after: z.coerce
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'The world just after this journal entry; not with before (a 400)' }),
  })
  .strict()
  .refine((q) => q.before === undefined || q.after === undefined, {
    message: 'give before or after, not both',
    path: ['before'],
  })
/** What a replay runs a bundle's steps through: the app's pipeline at the request's origin, the step rule, the control token. */
function replayer(ctx: RouteContext) {
  const control = ctx.app.options.control
  return {
    fetch: ctx.app.fetch,
    origin: ctx.target.origin,
    kindOf: stepKind(ctx.app),
    token: (control || undefined)?.token,
  }
}

/** A bundle's step is a request of the API, or a control call the log records as one; the rest (control, OAuth, /mcp) is no step. */
const stepKind =
  (app: RouteContext['app']): StepKind =>
  (method, path) => {
    const route = app.matcher.match(method, path).route
    if (!route) return undefined
    if (REPLAYED_CONTROL.has(route.id)) return 'control'
    return route.auth.kind !== 'control' && route.path.startsWith('/api/') ? 'api' : undefined
  }

export const getRepro = defineRoute({
  id: 'sandboxGetRepro',
  method: 'GET',
  path: '/__sandbox/repro',
  tag,
  auth: control,
  summary:
    'A repro bundle: the writes since the world began (its seed, or a base), credentials removed; `?before=` or `?after=` a request id: the world at that moment (docs/debugging.md)',
  query: moment,
  errors: {
    400: 'Not one request id: give before or after, not both',
    404: 'No such request in the journal',
    409: 'No bundle reaches that moment, or this world',
  },
  async handler(ctx) {
    const { bundleStart, reproBundle } = await import('./bundle.js')
    const reason = ctx.sandbox.repro.reason
    if (reason)
      throw new HttpError(
        409,
        `repro: no bundle can rebuild this world: ${reason}. POST /__sandbox/reset starts a world a bundle can rebuild`,
      )
    const { before, after } = ctx.query
    const at = before !== undefined ? { before } : after !== undefined ? { after } : undefined
    const start = bundleStart(ctx.sandbox, at, kit.refuse)
    if (!at) return ok(await reproBundle(ctx.sandbox, start))
    // The world at that moment is the one the shorter bundle rebuilds: rebuilt apart, and its end read off it.
    const { rebuild } = await import('./replay.js')
    const r = replayer(ctx)
    const world = await rebuild(kit, r.fetch, ctx.sandbox, start, r.origin, r.kindOf, r.token)
    // Rebuilt with its clock held still: it ends running or frozen as this world's does.
    world.clock = new Clock(world.clock.now(), Date.now, ctx.sandbox.clock.frozen)
    try {
      return ok(await reproBundle(ctx.sandbox, start, world))
    } finally {
      world.journal.clear()
      world.overrides.clear()
      world.repro.release()
    }
  },
})

export const postRepro = defineRoute({
  id: 'sandboxPostRepro',
  method: 'POST',
  path: '/__sandbox/repro',
  tag,
  auth: control,
  summary: "Rebuild a repro bundle's world in place of this one; a 400 or 409 names what is wrong and changes nothing",
  bodyFrom: 'sandboxGetRepro',
  // Read by the replay itself (its refusals name the part of the bundle): stated here as a whole.
  reads: {
    json: z
      .looseObject({ version: z.literal(REPRO_READS) })
      .meta({ description: 'A repro bundle, as GET /__sandbox/repro answers it (the link from that operation)' }),
  },
  errors: {
    400: 'Malformed, changed or cut bundle: body: a repro bundle (GET /__sandbox/repro) is required; version: must be a bundle version this sandbox reads',
    409: 'The bundle does not rebuild the same world here',
    413: 'Past 16 MB',
  },
  async handler(ctx) {
    const { readBundle, replayBundle } = await import('./replay.js')
    const raw = await readBundle(kit, ctx.request)
    const r = replayer(ctx)
    return ok(await replayBundle(kit, r.fetch, ctx.sandbox, raw, r.origin, r.kindOf, r.token))
  },
})
