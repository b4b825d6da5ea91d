import type { RouteDef } from '../route/route.js'

type Json = Record<string, unknown>

/**
 * OpenAPI links (docs/routes.md "Links"), worked out from the route table: a listed record to
 * the operations on it (read, update, actions: those of its collection, `idOf`, or under the
 * same path), a created record (201) likewise, a sign-in's token (`signsIn`) to every
 * operation that token opens, and an answer to the operation that takes it back (`bodyFrom`). `schemaOf` is the success body's JSON Schema.
 */
export function operationLinks(
  routes: readonly RouteDef[],
  schemaOf: (route: RouteDef) => Json | undefined,
): Map<RouteDef, Record<string, Json>> {
  const out = new Map<RouteDef, Record<string, Json>>()
  const add = (from: RouteDef, name: string, link: Json) => {
    let own = out.get(from)
    if (!own) out.set(from, (own = {}))
    own[name] = link
  }
  const onRecord = routes.filter((r) => paramsOf(r.path).length === 1)
  for (const to of routes) {
    const from = to.bodyFrom && routes.find((r) => r.id === to.bodyFrom)
    if (from)
      add(from, to.id, {
        operationId: to.id,
        requestBody: '$response.body',
        description: `This answer, as it came, is the body ${to.id} takes`,
      })
  }
  for (const from of routes) {
    if (from.signsIn) {
      for (const to of routes.filter((r) => r.auth.kind === from.signsIn!.kind))
        add(from, to.id, {
          operationId: to.id,
          parameters: { 'header.authorization': `Bearer {${from.signsIn.token}}` },
          description: `The token of this answer opens ${to.id}`,
        })
    }
    const listed = from.method === 'GET' && paramsOf(from.path).length === 0
    const created = (from.response?.status ?? 200) === 201
    if (!listed && !created) continue
    const schema = schemaOf(from)
    const pointer = schema && (listed ? listedIdPointer(schema) : createdIdPointer(schema))
    if (!pointer) continue
    const stem = stemOf(from.path)
    for (const to of onRecord) {
      if (to === from) continue
      if (to.auth.kind !== from.auth.kind && to.auth.kind !== 'control') continue
      if (!((listed && from.lists && to.idOf === from.lists) || stemOf(to.path) === stem)) continue
      add(from, to.id, {
        operationId: to.id,
        parameters: { [`path.${paramsOf(to.path)[0]}`]: `$response.body#${pointer}` },
        description: `The ${listed ? 'first listed' : 'created'} record's id to ${to.id}`,
      })
    }
  }
  return out
}

const paramsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1])

/** A collection's path without its verbs: `/api/v1/technician/list` and `/api/v1/technician/get/:id` share `/api/v1/technician`. */
function stemOf(path: string): string {
  const at = path.indexOf('/:')
  const head = at < 0 ? path : path.slice(0, at)
  return head.replace(/\/(list|get|delete|update|upload)$/, '')
}

type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema }

/** The JSON pointer of the first record's id in a list answer: the first array of objects with an `id`, breadth first (the drift walk's `firstId`). */
function listedIdPointer(schema: Json): string | undefined {
  const queue: [Schema, string][] = [[schema as Schema, '']]
  for (let i = 0; i < queue.length; i++) {
    const [s, at] = queue[i]
    if (s.type === 'array' && s.items?.properties) {
      const key = ['id', '_id'].find((k) => s.items!.properties![k])
      if (key) return `${at}/0/${key}`
    }
    for (const [k, v] of Object.entries(s.properties ?? {})) queue.push([v, `${at}/${escape(k)}`])
  }
  return undefined
}

/** The JSON pointer of a created record's id: the first `id` property outside lists, breadth first. */
function createdIdPointer(schema: Json): string | undefined {
  const queue: [Schema, string][] = [[schema as Schema, '']]
  for (let i = 0; i < queue.length; i++) {
    const [s, at] = queue[i]
    if (s.properties?.id) return `${at}/id`
    for (const [k, v] of Object.entries(s.properties ?? {})) queue.push([v, `${at}/${escape(k)}`])
  }
  return undefined
}

const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1')
