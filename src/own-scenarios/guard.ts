import { HttpError } from '../core/http/reply.js'
import type { RouteContext, ScenarioDefinition } from '../core/route/context.js'
import type { StandardSchemaV1 } from '../core/scenarios/options.js'

/** How long a hook of your own may take by default (`--scenario-timeout`, docs/your-own-answers.md). */
export const SCENARIO_TIMEOUT_MS = 30_000

/** The bound in force in this process (the command line sets `--scenario-timeout`; the Worker its entry's). */
export const scenarioLimits = { timeoutMs: SCENARIO_TIMEOUT_MS }

/**
 * Your scenario as the app runs it: each hook bounded and its failures named. A hook (`edge`,
 * `before`, `after`) that takes longer than `timeoutMs`, or that throws something other than
 * an HttpError, answers 500 naming the scenario and `file`, and the journal's faults say it
 * (`scenario-timeout`, `scenario-failed`, and the scenario's name). An options schema that
 * throws or answers no result, and an `activate` that throws, are the module's fault too: 500,
 * naming both. A refusal of the caller's options stays a 400 (the registry's). A synchronous
 * loop cannot be bounded here: it holds the one thread every world runs on.
 */
export function guardScenario(def: ScenarioDefinition, file: string): ScenarioDefinition {
  const named = `scenario "${def.name}" (${file})`
  const broken = (what: string, error: unknown) => new HttpError(500, `${named}: ${what} (${messageOf(error)})`)
  const hook = <A extends unknown[], R>(name: string, run: ((ctx: RouteContext, ...rest: A) => R) | undefined) =>
    run &&
    (async (ctx: RouteContext, ...rest: A): Promise<Awaited<R>> => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const { timeoutMs } = scenarioLimits
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          fault(ctx, def.name, 'scenario-timeout')
          reject(
            new HttpError(
              500,
              `${named}: its ${name} hook did not settle within ${timeoutMs} ms (--scenario-timeout); the request was answered without it`,
            ),
          )
        }, timeoutMs)
      })
      try {
        return await Promise.race([Promise.resolve().then(() => run.call(def, ctx, ...rest)), late])
      } catch (error) {
        if (error instanceof HttpError) throw error
        fault(ctx, def.name, 'scenario-failed')
        throw broken(`its ${name} hook threw`, error)
      } finally {
        clearTimeout(timer)
      }
    })
  const guarded: ScenarioDefinition = {
    ...def,
    // Read through, not spread: a scenario made by a class keeps these on its prototype.
    name: def.name,
    description: def.description,
    advice: def.advice,
    order: def.order,
    hides: def.hides?.bind(def),
    pinned: def.pinned?.bind(def),
    taxAuthority: def.taxAuthority,
    // Read by the conduct's coverage (docs/conduct.md): one that throws applies nowhere, never a 500 of the report.
    appliesTo:
      def.appliesTo &&
      ((route) => {
        try {
          return def.appliesTo!.call(def, route) === true
        } catch {
          return false
        }
      }),
    edge: hook('edge', def.edge),
    before: hook('before', def.before),
    after: hook('after', def.after),
  }
  if (def.activate) {
    const activate = def.activate
    guarded.activate = (sandbox, options) => {
      try {
        activate.call(def, sandbox, options)
      } catch (error) {
        if (error instanceof HttpError) throw error
        throw broken('its activate hook threw', error)
      }
    }
  }
  if (def.options) guarded.options = guardSchema(def.options, named)
  return guarded
}

/**
 * The options schema with its `validate` checked: a throw or no `{value}`/`{issues}` answered is
 * the module's fault (500 naming it), never a 500 "internal error" naming nothing. The schema's
 * own fields (a zod object's `shape`, read to list its options) stay readable through it.
 */
function guardSchema(schema: StandardSchemaV1, named: string): StandardSchemaV1 {
  const standard = schema['~standard']
  const validate = (value: unknown) => {
    let result: unknown
    try {
      result = standard.validate(value)
    } catch (error) {
      throw new HttpError(500, `${named}: its options schema threw (${messageOf(error)})`)
    }
    if (result instanceof Promise) return result
    if (result === null || typeof result !== 'object' || !('value' in result || 'issues' in result))
      throw new HttpError(
        500,
        `${named}: its options schema answered no result (${typeof result}), not {value} or {issues}`,
      )
    return result as ReturnType<typeof standard.validate>
  }
  const wrapped = Object.create(schema as object) as StandardSchemaV1
  Object.defineProperty(wrapped, '~standard', { value: { ...standard, validate }, enumerable: false })
  return wrapped
}

function fault(ctx: RouteContext, ...names: string[]): void {
  try {
    for (const name of names) ctx.fault(name)
  } catch {
    // The request is answered already: nothing to mark.
  }
}

function messageOf(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error).slice(0, 300)
  } catch {
    return 'an unprintable value was thrown'
  }
}
