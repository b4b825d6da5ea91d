/**
 * How deep user JSON may nest (a request body, an upstream's record): past this a body is
 * refused, because the walks that follow (the journal's, JSON.stringify, zod) recurse per level
 * and 5,000 levels overflow the stack (docs/bad-input.md).
 */
export const MAX_JSON_DEPTH = 100

/** Whether a parsed JSON value nests deeper than `limit` lists and objects; level by level, not recursion. */
export function deeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const containers = (list: unknown[]) => list.filter((v) => v !== null && typeof v === 'object') as object[]
  let level = containers([value])
  for (let depth = 0; level.length; depth++) {
    if (depth >= limit) return true
    level = level.flatMap((v) => containers(Object.values(v)))
  }
  return false
}
