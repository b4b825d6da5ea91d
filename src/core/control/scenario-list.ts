import { toJSONSchema } from 'zod'
import type { Sandbox } from '../sandbox/sandbox.js'

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
      const schema = withRoutes(toJSONSchema(s.options, { io: 'input' }) as { properties?: Record<string, unknown> })
      return { name: s.name, description: s.description, advice: s.advice, options: active?.options ?? s.options.parse({}), optionList: optionList(schema as Parameters<typeof optionList>[0]), schema, active: Boolean(active) }
    }),
    schedule: sandbox.active.map((a) => ({ name: a.name, options: a.options, from: a.from ?? null, until: a.until ?? null })),
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

type OptionSchema = { type?: string | string[]; enum?: unknown[]; anyOf?: OptionSchema[]; default?: unknown; description?: string }

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
