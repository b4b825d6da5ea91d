import type * as z from 'zod'

/** Marks a schema (a field, a body) the spec does not document: `x-sandbox-assumed` in the document. */
export function assumed<T extends z.ZodType>(schema: T, description?: string): T {
  return schema.meta({ 'x-sandbox-assumed': true, ...(description ? { description } : {}) }) as T
}
