/** The overrides' control calls, loaded on first use (routes.ts keeps only their table rows: the browser entry's budget). */
import type { RouteContext, RouteDef } from '../route/route.js'
import { HttpError, type Reply, badRequest, notFound, ok } from '../http/reply.js'
import type { Finding } from '../bridge/types.js'
import { type Override, parseOverride } from './override.js'

type App = RouteContext['app']
const checkers = new WeakMap<
  object,
  Promise<{ check: (op: RouteDef, status: number, type: string | null, body: string | null) => Finding[] }>
>()

/**
 * Differences between an override's answer and the served document for its operation, found
 * by the bridge's checker (loaded on first use: a page that never adds an override does not
 * carry the validator).
 */
async function findingsOf(app: App, route: RouteDef, o: Override): Promise<Finding[]> {
  if (!('status' in o.respond)) return []
  let checker = checkers.get(app)
  if (!checker) {
    checker = Promise.all([import('../bridge/check.js'), app.openapi()]).then(([{ Checker }, doc]) => new Checker(doc))
    checkers.set(app, checker)
  }
  const { status, headers, body } = o.respond
  const type = headers['content-type'] ?? (body === null ? null : 'application/json')
  const text =
    body === null ? null : typeof body === 'string' && type && !/json/i.test(type) ? body : JSON.stringify(body)
  return (await checker).check(route, status, type, text)
}

/** An override as the control API shows it. */
const shown = (o: Override) => {
  const { seq: _seq, ...rest } = o
  return { ...rest, remaining: o.times === null ? null : Math.max(0, o.times - o.used) }
}

/** Parses, checks against the document and, under `--strict`, refuses a body the document refuses. */
async function build(
  ctx: RouteContext,
  input: unknown,
  id: string,
  seq: number,
): Promise<{ override: Override; findings: Finding[] }> {
  const app = ctx.app as App
  const override = parseOverride(input, app.routes, (m, p) => app.matcher.match(m, p), ctx.now(), id, seq)
  const route = app.routes.find((r) => r.id === override.operation)!
  const findings = await findingsOf(app, route, override)
  if (app.options.strict && findings.length) {
    throw new HttpError(
      400,
      `respond: the served document refuses this answer for ${route.id} (--strict): ${findings
        .slice(0, 5)
        .map((f) => `${f.kind} at "${f.pointer}"`)
        .join('; ')}`,
    )
  }
  return { override, findings }
}

type Id = RouteContext<{ id: string }>

export async function add(ctx: RouteContext): Promise<Reply> {
  if (ctx.body === undefined) throw badRequest('body: must be an override {match, respond, ...}')
  const overrides = ctx.sandbox.overrides
  const name = (ctx.body as { name?: unknown } | null)?.name
  if (typeof name === 'string' && overrides.list().some((o) => o.name === name))
    throw new HttpError(409, `name: an override named "${name}" exists; DELETE /__sandbox/overrides/${name} first`)
  // Numbered by add, once accepted: a refusal takes no id.
  const built = await build(ctx, ctx.body, '', 0)
  const override = overrides.add(built.override)
  const { findings } = built
  ctx.sandbox.changed('overrides')
  return { status: 201, body: { ...shown(override), findings } }
}

export const list = (ctx: RouteContext): Reply => ok({ overrides: ctx.sandbox.overrides.list().map(shown) })

function byIdOrName(ctx: Id): Override {
  const all = ctx.sandbox.overrides.list()
  const found = all.find((o) => o.id === ctx.params.id) ?? all.find((o) => o.name === ctx.params.id)
  if (!found) throw notFound(`id: no override "${ctx.params.id}" in this sandbox`)
  return found
}

export const one = (ctx: Id): Reply => ok(shown(byIdOrName(ctx)))

export async function replace(ctx: Id): Promise<Reply> {
  let old: Override
  try {
    old = byIdOrName(ctx)
  } catch (missing) {
    // A malformed override is named before a missing one: the request's shape comes first.
    await build(ctx, ctx.body, 'unchecked', 0)
    throw missing
  }
  const name = (ctx.body as { name?: unknown } | null)?.name
  if (typeof name === 'string' && ctx.sandbox.overrides.list().some((o) => o.name === name && o.id !== old.id))
    throw new HttpError(409, `name: an override named "${name}" exists`)
  const { override, findings } = await build(ctx, ctx.body, old.id, old.seq)
  override.used = old.used
  ctx.sandbox.overrides.replace(override)
  ctx.sandbox.changed('overrides')
  return ok({ ...shown(override), findings })
}

export function remove(ctx: Id): Reply {
  const found = byIdOrName(ctx)
  ctx.sandbox.overrides.remove(found.id)
  ctx.sandbox.changed('overrides')
  return ok({ removed: found.id })
}

export function clear(ctx: RouteContext): Reply {
  const count = ctx.sandbox.overrides.size
  ctx.sandbox.overrides.clear()
  ctx.sandbox.changed('overrides')
  return ok({ removed: count, overrides: [] })
}
