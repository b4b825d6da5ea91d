import { countFiles, readForm, readJson } from '../http/body.js'
import { QueryValidator } from '../http/query.js'
import type { Reply } from '../http/reply.js'
import { validate } from '../http/validate.js'
import { readSnapshot } from '../control/snapshot-body.js'
import type { RouteContext, RouteDef } from '../route/context.js'
import type { Exchange, Stage } from '../route/exchange.js'

/** Each route's query checker, made on its first request. */
const queries = new WeakMap<RouteDef, QueryValidator<RouteContext['query']>>()

/**
 * The request's input checked against its route: path params, query and body (400 naming the
 * field and the rule). Every body is read here, before the write lock of the route stage: a
 * slow upload holds up no other write.
 */
export const input: Stage = {
  name: 'input',
  answer(x) {
    const route = x.route
    if (route.params) x.params = validate(route.params, x.params, 'path')
    if (route.query) x.query = validQuery(route, x.search)
    if (route.body) return body(x, route.body)
  },
}

async function body(x: Exchange, kind: NonNullable<RouteDef['body']>): Promise<Reply | undefined> {
  if (kind === 'multipart') x.form = countFiles(await readForm(x.request))
  else if (kind === 'snapshot') x.body = await readSnapshot(x.request)
  else x.body = validate(kind, await readJson(x.request), 'body')
  return undefined
}

function validQuery(route: RouteDef, search: string): RouteContext['query'] {
  let validator = queries.get(route)
  if (!validator) queries.set(route, (validator = new QueryValidator(route.query!)))
  return validator.validate(search)
}
