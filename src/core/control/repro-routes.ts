import { defineRoute } from '../app/route.js'
import { ok } from '../http/reply.js'
import type { RequestMeta } from '../app/front-door.js'

const control = { kind: 'control' } as const
const tag = 'sandbox control'

// The bundle's builder and its replay are loaded on first use: a page that never asks carries neither (the browser entry's budget).

export const getRepro = defineRoute({
  id: 'sandboxGetRepro', method: 'GET', path: '/__sandbox/repro', tag, auth: control,
  summary: 'A repro bundle: seed, start, fixtures digest, scenarios, overrides, and the writes and control calls since the last reset with their bodies, credentials removed (docs/debugging.md); 409 naming why when none can rebuild this world',
  handler: async (ctx) => ok(await (await import('../repro/bundle.js')).reproBundle(ctx.sandbox)),
})

export const postRepro = defineRoute({
  id: 'sandboxPostRepro', method: 'POST', path: '/__sandbox/repro', tag, auth: control,
  summary: 'Replay a repro bundle (up to 16 MB) into a fresh world and put it in place of this one once every answer and the world\'s digest match; a 400 names a malformed field, a 409 the step or part that differs; either changes nothing',
  async handler(ctx) {
    const { readBundle, replayBundle } = await import('../repro/replay.js')
    const raw = await readBundle(ctx.request)
    const fetch = (ctx.app as unknown as { fetch(request: Request, meta?: RequestMeta): Promise<Response> }).fetch
    const control = ctx.app.options.control
    return ok(await replayBundle(fetch, ctx.sandbox, raw, new URL(ctx.request.url).origin, (control || undefined)?.token))
  },
})
