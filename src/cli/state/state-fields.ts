import { WORLD_PARTS } from '../../core/sandbox/parts.js'
import { rowSchemas } from '../../core/store/world.js'

/** The fields a state file may hold: `version` and every part's (src/core/sandbox/parts.ts). */
const TOP = new Set(['version', ...WORLD_PARTS.flatMap((p) => p.fields)])

/** Each collection's record fields, where its schema names them (a zod object). */
const RECORD_FIELDS: Record<string, Set<string> | undefined> = Object.fromEntries(
  Object.entries(rowSchemas).map(([name, schema]) => {
    const shape = (schema as { shape?: object }).shape
    return [name, shape ? new Set(Object.keys(shape)) : undefined]
  }),
)

/**
 * The first field of a state file no sandbox writes: an unknown one at the top or in a record
 * (a restore would drop it silently, so a hand-edited file would lose what its author meant),
 * or a `__proto__` anywhere (JSON.parse makes it an own key). Undefined when there is none.
 */
export function unknownField(state: unknown): string | undefined {
  if (state === null || typeof state !== 'object' || Array.isArray(state)) return undefined
  const proto = protoKey(state, '')
  if (proto) return proto
  for (const key of Object.keys(state)) if (!TOP.has(key)) return key
  for (const [name, fields] of Object.entries(RECORD_FIELDS)) {
    const rows = (state as Record<string, unknown>)[name]
    if (!fields || !Array.isArray(rows)) continue
    for (const [i, row] of rows.entries())
      if (row && typeof row === 'object')
        for (const key of Object.keys(row)) if (!fields.has(key)) return `${name}.${i}.${key}`
  }
  return undefined
}

/** The path of a `__proto__` key, level by level (the file's depth is bounded before this). */
function protoKey(value: unknown, at: string): string | undefined {
  let level: [unknown, string][] = [[value, at]]
  while (level.length) {
    const next: [unknown, string][] = []
    for (const [v, path] of level) {
      if (v === null || typeof v !== 'object') continue
      for (const key of Object.keys(v)) {
        const here = path ? `${path}.${key}` : key
        if (key === '__proto__') return here
        next.push([(v as Record<string, unknown>)[key], here])
      }
    }
    level = next
  }
  return undefined
}
