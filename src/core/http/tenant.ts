import type { Principal } from '../auth/principal.js'
import { forbidden, notFound } from './reply.js'
import type { RouteContext } from '../route/route.js'

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
export function owned<T extends { clientId: string }>(
  ctx: RouteContext,
  row: T | undefined,
  what: string,
  id: string | number,
): T {
  if (!row || row.clientId !== clientOf(ctx)) throw notFound(`${what}: no ${what} with id ${id}`)
  return row
}

/** The caller's rows of a table, narrowed by `keep`; none when a scenario hides the collection. */
export function clientRows<T extends { clientId: string }>(
  ctx: RouteContext,
  table: { name: string; where(predicate: (row: T) => boolean): T[] },
  keep: (row: T) => boolean = () => true,
): T[] {
  if (!ctx.visible(table.name)) return []
  const clientId = clientOf(ctx)
  return table.where((row) => row.clientId === clientId && keep(row))
}

/** Drops the tenant key the public shapes do not carry. */
export function publicRow<T extends { clientId?: string }>(row: T): Omit<T, 'clientId'> {
  const { clientId: _, ...rest } = row
  return rest
}
