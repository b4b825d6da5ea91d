import * as z from 'zod'
import type { Principal } from '../auth/principal.js'
import { forbidden, notFound } from './reply.js'
import type { RouteContext } from '../app/route.js'

/** The caller's client; every record read or written must belong to it. */
export function clientOf(ctx: RouteContext): string {
  if (!ctx.principal) throw forbidden('authorization: this route needs a signed-in user')
  return ctx.principal.clientId
}

/** A backoffice user principal (not a portal contact). */
export function userOf(ctx: RouteContext): Extract<Principal, { user: unknown }> {
  const p = ctx.principal
  if (!p || p.kind === 'portal') throw forbidden('authorization: this route needs a backoffice user')
  return p
}

/** Another client's record answers 404, as a missing one: ids never leak across tenants. */
export function owned<T extends { clientId: string }>(ctx: RouteContext, row: T | undefined, what: string, id: string | number): T {
  if (!row || row.clientId !== clientOf(ctx)) throw notFound(`${what}: no ${what} with id ${id}`)
  return row
}

/**
 * The caller's rows of a table, narrowed by `keep`; none under the `empty` scenario, which
 * then marks the answer as shaped by it.
 */
export function clientRows<T extends { clientId: string }>(ctx: RouteContext, table: { where(predicate: (row: T) => boolean): T[] }, keep: (row: T) => boolean = () => true): T[] {
  if (ctx.scenario('empty')) {
    ctx.fault('empty')
    return []
  }
  const clientId = clientOf(ctx)
  return table.where((row) => row.clientId === clientId && keep(row))
}

/** Drops the tenant key the public shapes do not carry. */
export function publicRow<T extends { clientId?: string }>(row: T): Omit<T, 'clientId'> {
  const { clientId: _, ...rest } = row
  return rest
}

export const idParam = (name = 'id', rule = z.string().min(1).max(128)) => z.object({ [name]: rule })

export const successEnvelope = (data: z.ZodType) => z.object({ status: z.literal('success'), data })

/** An integer query parameter; each rule keeps its own message ("limit: must be at most 50"). */
export const integer = (min: number, max?: number) => {
  let n = z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(min, `must be at least ${min}`)
  if (max !== undefined) n = n.max(max, `must be at most ${max}`)
  return n
}

/** A repeatable query parameter: `types=a&types=b` or a single scalar (spec). */
export const repeatable = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(item).optional())

/** `?page=&limit=` (page >= 1, limit 1..50, default 20), as the spec's notification list. */
export const pageQuery = z.object({ page: integer(1).default(1), limit: integer(1, 50).default(20) })

export function paginate<T>(rows: T[], page: number, limit: number) {
  return {
    items: rows.slice((page - 1) * limit, page * limit),
    pagination: { page, limit, total: rows.length, totalPages: Math.ceil(rows.length / limit) },
  }
}
