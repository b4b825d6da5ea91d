import type { RouteDef } from '../core/route/route.js'
import { jsonSchema } from '../core/control/openapi.js'
import type { ToolName } from '../../generated/api/operation-ids.js'

type Json = Record<string, unknown>

/** One MCP tool: an API operation of the route table, called with the agent's token (docs/agents.md). */
export interface ApiTool {
  name: ToolName
  title: string
  description: string
  inputSchema: Json & { type: 'object' }
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false }
  route: RouteDef
  /** Argument names that go into the path, the query string, and whether `body` is taken. */
  path: readonly string[]
  query: readonly string[]
  body: boolean
}

/** Why an operation of the table has no tool, or none when it has one. */
export function untooled(route: RouteDef): string | undefined {
  if (route.auth.kind === 'control') return 'the control API (`/__sandbox`) drives the sandbox, not the product'
  if (route.auth.kind === 'public') return 'signs in or out without a token: the agent holds one already'
  if (route.auth.kind === 'portal') return "the client portal's own token opens it, not an agent token"
  if (route.id === 'signOut') return 'ends a session; an agent ends its grant with `POST /oauth/revoke`'
  if (route.body === 'multipart') return 'takes files (multipart), which a tool argument does not carry'
  return undefined
}

const made = new WeakMap<readonly RouteDef[], Map<string, ApiTool>>()

/** The tools of a route table by name, made once per table: one per backoffice operation an agent token opens. */
export function toolsOf(routes: readonly RouteDef[]): Map<string, ApiTool> {
  let tools = made.get(routes)
  if (!tools) made.set(routes, (tools = new Map(routes.filter((r) => !untooled(r)).map((r) => [r.id, toolOf(r)]))))
  return tools
}

function toolOf(route: RouteDef): ApiTool {
  const properties: Record<string, Json> = {}
  const required: string[] = []
  const defs: Json = {}
  const path = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1])
  const params = route.params ? hoisted(jsonSchema(route.params, 'input'), defs) : undefined
  for (const name of path) {
    const schema = (params?.properties as Record<string, Json> | undefined)?.[name] ?? { type: 'string' }
    properties[name] = { ...schema, description: described(schema, `path parameter \`${name}\``) }
    required.push(name)
  }
  const query: string[] = []
  if (route.query) {
    const schema = hoisted(jsonSchema(route.query, 'input'), defs)
    const own = new Set((schema.required as string[] | undefined) ?? [])
    for (const [name, field] of Object.entries((schema.properties as Record<string, Json> | undefined) ?? {})) {
      if (properties[name]) throw new Error(`${route.id}: query parameter ${name} has the name of a path parameter`)
      properties[name] = { ...field, description: described(field, `query parameter \`${name}\``) }
      query.push(name)
      if (own.has(name)) required.push(name)
    }
  }
  const body = route.body !== undefined && typeof route.body !== 'string'
  if (body) {
    const schema = route.body as Exclude<RouteDef['body'], string | undefined>
    properties.body = { ...hoisted(jsonSchema(schema, 'input'), defs), description: 'The JSON request body' }
    if (!schema.safeParse(undefined).success) required.push('body')
  }
  const inputSchema: ApiTool['inputSchema'] = {
    type: 'object',
    properties,
    ...(required.length && { required }),
    additionalProperties: false,
    ...(Object.keys(defs).length && { $defs: defs }),
  }
  const permission =
    route.auth.kind === 'user' && route.auth.permission ? ` Needs the permission \`${route.auth.permission}\`.` : ''
  const summary = route.summary.replace(/\.$/, '')
  return {
    // Its operation id; the generated union lists the table's tools (scripts/gen-api.mjs).
    name: route.id as ToolName,
    title: summary,
    description: `${summary}. Calls \`${route.method} ${route.path}\` with your token.${permission} Assumed: the spec shows no MCP tools; this tool is the API operation \`${route.id}\`${route.assumed ? ', itself assumed (not in the spec)' : ''}.`,
    inputSchema,
    annotations: {
      readOnlyHint: route.method === 'GET',
      destructiveHint: route.method === 'DELETE',
      idempotentHint: route.method !== 'POST' && route.method !== 'PATCH',
      openWorldHint: false,
    },
    route,
    path,
    query,
    body,
  }
}

/** A schema's own `$defs` moved to the tool's root, where its `#/$defs/...` references point. */
function hoisted(schema: Json, defs: Json): Json {
  const { $defs, ...rest } = schema
  if ($defs) Object.assign(defs, $defs)
  return rest
}

const described = (schema: Json, what: string) =>
  typeof schema.description === 'string' ? `${schema.description} (${what})` : what
