import type { Parameters } from 'fast-check'

/**
 * The bounded budget `npm test` runs per engine; `SESSIONS_RUNS` raises it, and `SESSIONS_SEED`
 * with `SESSIONS_PATH` (printed by a failure) replay one failing session and its shrinking.
 */
export function budget(engine: string, runs = 8): Parameters<unknown> {
  const seed = process.env.SESSIONS_SEED
  const path = process.env.SESSIONS_PATH
  return {
    numRuns: Number(process.env.SESSIONS_RUNS ?? runs),
    // A session that hangs fails as one (30 s); the shrinking of a failure stops at 80 s with what it has.
    timeout: 30_000,
    interruptAfterTimeLimit: 80_000,
    ...(seed ? { seed: Number(seed) } : {}),
    ...(path ? { path } : {}),
    // The seed of a failure, with the engine it failed on.
    reporter: (details) => {
      if (details.failed)
        throw new Error(
          `${engine}: ${(details.errorInstance as Error)?.message ?? String(details.errorInstance)}\n\nreplay: SESSIONS_SEED=${details.seed} SESSIONS_PATH=${details.counterexamplePath} (counterexample: ${JSON.stringify(details.counterexample)})`,
        )
    },
  }
}
