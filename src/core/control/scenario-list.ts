import { toJSONSchema } from 'zod'
import type { Sandbox } from '../sandbox/sandbox.js'
import { type StandardSchemaV1, readOptions } from '../scenarios/options.js'

/**
 * `GET /__sandbox/scenarios`: every scenario with its options, their JSON Schema and whether it
 * is active now, and every entry of the schedule with its window. Loaded on first use, with
 * zod's JSON Schema writer (the browser entry's budget).
 */
export function scenarioList(sandbox: Sandbox) {
  const inForce = sandbox.inForce()
  return {
    scenarios: sandbox.shared.scenarios.list().map((s) => {
      const active = inForce.find((a) => a.name === s.name)
      const schema = optionsSchema(s.options)
      const defaults = readOptions(s.options, {})
      return {
        name: s.name,
        description: s.description,
        advice: s.advice,
        options: active?.options ?? ('value' in defaults ? defaults.value : {}),
        optionList: optionList(schema as Parameters<typeof optionList>[0]),
        schema,
        active: Boolean(active),
      }
    }),
    schedule: sandbox.active.map((a) => ({
      name: a.name,
      options: a.options,
      from: a.from ?? null,
      until: a.until ?? null,
    })),
  }
}

/** A scenario's options as the served document states them: its own schema, `routes` included. */
export const optionsSchema = (options: StandardSchemaV1 | undefined) => withRoutes(jsonSchemaOf(options))

/** What the served document says of the scenarios (openapi.ts `scenarios`, `scenarioOptions`). */
export function scenarioDocument(defs: readonly { name: string; options?: StandardSchemaV1 }[]) {
  return {
    scenarios: defs.map((d) => d.name),
    scenarioOptions: Object.fromEntries(defs.map((d) => [d.name, optionsSchema(d.options) as Record<string, unknown>])),
  }
}

type ObjectSchema = {
  type?: string
  properties?: Record<string, unknown>
  description?: string
  additionalProperties?: boolean
}

/**
 * The JSON Schema of a scenario's options: zod 4 writes it; another library through the Standard
 * JSON Schema interface when it offers one; else an object whose options are not listed (its
 * validator still checks them).
 */
function jsonSchemaOf(options: StandardSchemaV1 | undefined): ObjectSchema {
  if (options === undefined) return { type: 'object', properties: {}, additionalProperties: false }
  try {
    if ('_zod' in options) return toJSONSchema(options as never, { io: 'input' }) as ObjectSchema
    const standard = options['~standard'] as { jsonSchema?: { input?(o: { target: string }): unknown } }
    const json = standard.jsonSchema?.input?.({ target: 'draft-2020-12' })
    if (json && typeof json === 'object') return json as ObjectSchema
  } catch {
    // A schema that cannot be written (a refinement, a transform): its options go unlisted.
  }
  return {
    type: 'object',
    description: `options checked by ${options['~standard'].vendor}; their JSON Schema is not known`,
  }
}

/** Every scenario takes `routes` (routes-option.ts): its schema says so. */
function withRoutes<S extends { properties?: Record<string, unknown> }>(schema: S): S {
  const routes = {
    description: 'Act on these routes only: operation ids or "METHOD /path" patterns (* one segment); text form a|b',
    anyOf: [{ type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 100 }, { type: 'string' }],
  }
  return { ...schema, properties: { ...schema.properties, routes } }
}

type OptionSchema = {
  type?: string | string[]
  enum?: unknown[]
  anyOf?: OptionSchema[]
  default?: unknown
  description?: string
}

/**
 * Every option a scenario takes, optional ones included (`options` shows only those with a
 * value): name, JSON type, whether it has a default, the default.
 */
function optionList(schema: { properties?: Record<string, OptionSchema>; required?: string[] }) {
  return Object.entries(schema.properties ?? {}).map(([name, p]) => ({
    name,
    type: typeOf(p),
    ...('default' in p ? { default: p.default } : {}),
    ...(p.description ? { description: p.description } : {}),
  }))
}

function typeOf(p: OptionSchema): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' | ')
  if (p.anyOf) return p.anyOf.map(typeOf).join(' | ')
  return [p.type ?? 'any'].flat().join(' | ')
}
