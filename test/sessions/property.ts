import fc from 'fast-check'
import { session, worldsOf, type Cmd, type GrammarOptions } from './grammar.js'
import { bundleReplays, freshWorld, momentReplays, rewindThenRest, snapshotRestores } from './properties.js'
import { WORLDS } from './grammar.js'
import { Runner, type AnswerCheck, type Target } from './runner.js'

/**
 * The property every engine checks: a generated session run through the front door meets no
 * unasked 5xx and no answer outside the served document, and after it every world's bundle, the
 * bundle of a moment, and its snapshot rebuild it. `open`: a target with fresh worlds for each
 * session; `close`: its end.
 */
export interface Engine {
  open(): Promise<Target & { check?: AnswerCheck; close?(): void | Promise<void> }>
}

export interface Tally {
  sessions: number
  steps: number
  requests: number
}

export function sessionProperty(engine: Engine, tally: Tally, grammar: GrammarOptions = {}) {
  return fc.asyncProperty(
    session(grammar),
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.constantFrom<'before' | 'after'>('before', 'after'),
    async (cmds: Cmd[], pick: number, side: 'before' | 'after') => {
      const target = await engine.open()
      try {
        const problems = await checkSession(target, cmds, pick, side, target.check)
        tally.sessions++
        tally.steps += cmds.length
        if (problems.length) throw new Error(problems.join('\n'))
      } finally {
        await target.close?.()
      }
    },
  )
}

/** Runs one session and checks every property after it; answers what failed. */
export async function checkSession(
  target: Target,
  cmds: readonly Cmd[],
  pick = 0.5,
  side: 'before' | 'after' = 'before',
  check?: AnswerCheck,
  tally?: Tally,
): Promise<string[]> {
  const runner = new Runner(target, check)
  await runner.run(cmds)
  const problems = [...runner.problems]
  runner.checking = false
  for (const w of worldsOf(cmds)) {
    problems.push(...(await bundleReplays(runner, w)))
    problems.push(...(await momentReplays(runner, w, pick, side)))
    problems.push(...(await snapshotRestores(runner, w)))
  }
  // In worlds of its own, beside the session's.
  const make = () => {
    const ids = Array.from({ length: WORLDS }, () => freshWorld('rewound'))
    return new Runner({ fetch: target.fetch, ids }, check)
  }
  problems.push(...(await rewindThenRest(make, cmds, pick)))
  if (tally) tally.requests += runner.requests
  return problems
}
