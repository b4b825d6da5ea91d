import type { Match } from '../route/matcher.js'
import { HttpError } from '../http/reply.js'
import type { Sandbox } from '../sandbox/sandbox.js'

type Json = Record<string, any>

/**
 * The served OpenAPI document cut to what the app used: the operations the journal holds and,
 * of each, the statuses it met (a status the document does not list is left out, and named in
 * `x-sandbox-unlisted`). Components stay whole: the kept operations refer to them.
 */
export function usedOpenapi(s: Sandbox, match: (method: string, path: string) => Match, served: Json): Json {
  const used = new Map<string, Set<number>>()
  for (const e of s.journal.list()) {
    const route = match(e.method === 'HEAD' ? 'GET' : e.method, e.path).route
    if (!route || route.auth.kind === 'control' || e.status === 0 || e.faults.includes('use')) continue
    const key = `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`
    let statuses = used.get(key)
    if (!statuses) used.set(key, (statuses = new Set()))
    statuses.add(e.status)
  }
  if (used.size === 0)
    throw new HttpError(
      409,
      `journal: this world's journal holds no API answer to describe (${s.journal.size} entries); the app's requests make it`,
    )
  const paths: Json = {}
  const unlisted: string[] = []
  for (const [key, statuses] of used) {
    const [method, path] = key.split(' ')
    const op = served.paths?.[path]?.[method.toLowerCase()]
    if (!op) continue
    const responses: Json = {}
    for (const status of [...statuses].sort()) {
      if (op.responses[String(status)]) responses[String(status)] = op.responses[String(status)]
      else unlisted.push(`${op.operationId} ${status}`)
    }
    // An operation needs one response at least: its documented success where the app met only unlisted ones.
    if (Object.keys(responses).length === 0) {
      const first = Object.keys(op.responses)[0]
      responses[first] = op.responses[first]
    }
    ;(paths[path] ??= {})[method.toLowerCase()] = { ...op, responses }
  }
  const tags = new Set(
    Object.values(paths).flatMap((item: Json) => Object.values(item).flatMap((op: Json) => op.tags ?? [])),
  )
  const doc: Json = {
    ...served,
    info: {
      ...served.info,
      title: `${served.info.title}: the operations the app used`,
      description: "The operations and statuses of one sandbox world's journal, with the served document's schemas.",
    },
    tags: (served.tags ?? []).filter((t: Json) => tags.has(t.name)),
    paths,
  }
  if (unlisted.length) doc['x-sandbox-unlisted'] = unlisted
  return doc
}
