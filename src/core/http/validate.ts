import type { z } from 'zod'
import { badRequest } from './reply.js'
import { SAFE_INTEGER_RULE } from './schemas.js'

/** Repeated keys become arrays, single ones stay scalars: schemas accept both (spec). */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of params) {
    // Own keys only: `?__proto__=1` is a field like any other (a schema names it unknown), not the prototype.
    const prev = Object.hasOwn(out, k) ? out[k] : undefined
    const value = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** Validates with a schema; the 400 names the field and the rule. */
export function validate<T>(schema: z.ZodType<T>, value: unknown, where: 'body' | 'query' | 'path'): T {
  const result = schema.safeParse(value, { error: rule })
  if (result.success) return result.data
  throw badRequest(describeIssues(result.error.issues, where))
}

/** `field: rule` for each problem (at most five), so one answer names everything to fix. */
export function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[], where: string): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : where}: ${i.message}`)
    .join('; ')
}

type Issue = {
  code: string
  input?: unknown
  expected?: string
  maximum?: unknown
  minimum?: unknown
  origin?: string
  values?: unknown[]
  format?: string
  keys?: string[]
  inclusive?: boolean
}

/** Zod issues in plain words: "is required", "must be one of a, b", "must be at most 50". */
function rule(issue: Issue): string | undefined {
  const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : ''
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? 'is required'
        : `must be ${issue.expected === 'int' ? 'an integer' : /^[aeiou]/.test(issue.expected ?? '') ? `an ${issue.expected}` : `a ${issue.expected}`}`
    case 'too_big':
      if (issue.origin === 'int') return SAFE_INTEGER_RULE
      return issue.inclusive === false
        ? `must be less than ${issue.maximum}${unit}`
        : `must be at most ${issue.maximum}${unit}`
    case 'too_small':
      return issue.inclusive === false
        ? `must be greater than ${issue.minimum}${unit}`
        : `must be at least ${issue.minimum}${unit}`
    case 'invalid_value':
      return `must be one of ${(issue.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`
    case 'invalid_format':
      return `must be a valid ${issue.format}`
    case 'unrecognized_keys':
      return `unknown field ${(issue.keys ?? []).join(', ')}`
    default:
      return undefined
  }
}
