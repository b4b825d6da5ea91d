/**
 * How deep user JSON may nest (a request body, an upstream's record): past this a body is
 * refused, because the walks that follow (the journal's, JSON.stringify, zod) recurse per level
 * and 5,000 levels overflow the stack (docs/bad-input.md).
 */
export const MAX_JSON_DEPTH = 100

/** Whether a parsed JSON value nests deeper than `limit` lists and objects; a loop, not recursion. */
export function deeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth >= limit) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
  }
  return false
}
