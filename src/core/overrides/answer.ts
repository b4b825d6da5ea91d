import type { RouteContext } from '../route/route.js'
import type { RouteOverrides } from './overrides.js'
import { RawBody, type Reply } from '../http/reply.js'
import { readJson } from '../http/body.js'

/**
 * The answer of the override that matches this request, or none: `anonymous` asks for those
 * that answer before auth (`match.anonymous`), else those that answer after it.
 */
export async function overrideReply(
  overrides: RouteOverrides,
  ctx: RouteContext,
  anonymous: boolean,
): Promise<Reply | undefined> {
  const o = await overrides.find(
    anonymous,
    { params: ctx.params, search: ctx.search, headers: ctx.request.headers, body: () => readJson(ctx.request) },
    ctx.now(),
  )
  if (!o) return undefined
  ctx.sandbox.overrides.version++
  ctx.fault(`override:${o.id}`)
  const override = { id: o.id, label: o.name ?? o.id }
  if (o.respond.delayMs) await new Promise((resolve) => setTimeout(resolve, o.respond.delayMs))
  if (!('status' in o.respond)) return { status: 0, body: null, cut: true, override }
  const { status, headers, body } = o.respond
  const type = headers['content-type']
  // A text answer with its own type is sent as it is; anything else as JSON.
  const sent = typeof body === 'string' && type && !/json/i.test(type) ? new RawBody(body, type) : body
  return { status, body: sent, headers, override }
}
