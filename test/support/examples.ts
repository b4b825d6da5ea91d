/** A value that satisfies a JSON Schema as far as its simple keywords go (types, enums, formats, bounds). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function example(schema: any, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 6) return 'x'
  if ('const' in schema) return schema.const
  if ('default' in schema) return schema.default
  if (Array.isArray(schema.enum)) return schema.enum[0]
  for (const key of ['anyOf', 'oneOf'])
    if (Array.isArray(schema[key]))
      return example(schema[key].find((s: { type?: string }) => s.type !== 'null') ?? schema[key][0], depth + 1)
  if (Array.isArray(schema.allOf)) return example(Object.assign({}, ...schema.allOf), depth + 1)
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type
  switch (type) {
    case 'string':
      return stringExample(schema)
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1)
    case 'boolean':
      return true
    case 'null':
      return null
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => example(schema.items, depth + 1))
    case 'object':
    default: {
      if (!schema.properties) return type === 'object' ? {} : 'x'
      const out: Record<string, unknown> = {}
      for (const [name, prop] of Object.entries(schema.properties)) out[name] = example(prop, depth + 1)
      return out
    }
  }
}

function stringExample(schema: { format?: string; minLength?: number; maxLength?: number; pattern?: string }): string {
  switch (schema.format) {
    case 'uuid':
      return globalThis.crypto.randomUUID()
    case 'email':
      return 'admin@fleet.test'
    case 'date-time':
      return '2026-11-22T12:00:00.000Z'
    case 'date':
      return '2026-11-22'
    case 'uri':
    case 'url':
      return 'https://example.test/x'
  }
  const base = 'example'
  return base.padEnd(schema.minLength ?? 0, 'x').slice(0, schema.maxLength ?? base.length)
}
