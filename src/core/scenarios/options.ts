/**
 * A scenario's `options`: any Standard Schema (standardschema.dev: zod 3.24 and later, zod 4,
 * valibot, arktype, ...), as @msw/data takes them, or none. The interface is copied, as its
 * authors ask, so an app's types need no package for it.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
    readonly types?: { readonly input: Input; readonly output: Output } | undefined
  }
}

type StandardResult<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> }

interface StandardIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
  /** zod's own, kept by its `~standard`: an unknown key is said in our words. */
  readonly code?: string
  readonly keys?: readonly string[]
}

/** What a scenario without `options` takes: nothing but `routes`, which every scenario takes. */
export type NoOptions = StandardSchemaV1<{}, {}>
export type OptionsInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input']
export type OptionsOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output']

/** One thing wrong with the options: where (dotted, '' for the whole) and the rule, or the unknown keys. */
export interface OptionsIssue {
  path: string
  message: string
  unknown?: readonly string[]
}

/**
 * The options as the scenario reads them, or the first issue. Validation must be synchronous
 * (a request cannot wait on it): checkScenario refuses at start a schema that answers a promise.
 */
export function readOptions(
  schema: StandardSchemaV1 | undefined,
  raw: unknown,
): { value: Record<string, unknown> } | { issue: OptionsIssue } {
  if (schema === undefined) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      return { issue: { path: '', message: 'must be an object' } }
    const keys = Object.keys(raw)
    return keys.length ? { issue: { path: '', message: '', unknown: keys } } : { value: {} }
  }
  const result = schema['~standard'].validate(raw)
  if (result instanceof Promise)
    return { issue: { path: '', message: 'the schema validates asynchronously; a scenario needs a synchronous one' } }
  if (!result.issues) return { value: result.value as Record<string, unknown> }
  const issue = result.issues[0] ?? { message: 'invalid' }
  const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.')
  return {
    issue: {
      path,
      message: issue.message,
      ...(issue.code === 'unrecognized_keys' && issue.keys ? { unknown: issue.keys } : {}),
    },
  }
}

/** True for a Standard Schema (zod 3.24+, zod 4, valibot, arktype, ...). */
export const isStandardSchema = (value: unknown): value is StandardSchemaV1 =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as Partial<StandardSchemaV1>)['~standard']?.validate === 'function'
