import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { seededRandom } from '../../src/core/clock/random.js'
import { verifyPact } from '../contracts/pact-tools.js'
import { NOW, runtimes } from './runtimes.js'

/** The orders a pact is verified in (issue 51: a pact verifies whatever ran before each interaction). */
export type Order = 'recorded' | 'reversed' | 'shuffled' | 'alone' | 'twice'
export const ORDERS: readonly Order[] = ['recorded', 'reversed', 'shuffled', 'alone', 'twice']

export interface VerifyOptions {
  /** A fresh sandbox for one verification: its URL and how to stop it. Default: the Node server with the test runtimes' options. */
  start?: () => Promise<{ url: string; close(): Promise<void> }>
  /** The seed of the shuffled order (printed in a failure, to repeat it). */
  seed?: number
  /** Which orders; all of them by default. */
  orders?: readonly Order[]
}

interface Pactish {
  interactions: { description: string }[]
}

const server = runtimes.find((r) => r.name.startsWith('hono'))!

/** A fresh Node server as the test runtimes start it (seed 1, small, the fixed clock). */
async function startDefault(): Promise<{ url: string; close(): Promise<void> }> {
  const running = await server.start({ seed: 1, now: NOW, size: 'small' })
  return { url: running.url!, close: () => running.close() }
}

/** Seeded Fisher-Yates (the sandbox's own generator): the same seed, the same order. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed)
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** What the verifier said failed, in a line per interaction (its JSON result), or its whole output. */
function failures(output: string): string {
  try {
    const result = JSON.parse(output) as { errors?: { interaction: string; mismatch?: unknown }[] }
    if (result.errors?.length)
      return result.errors.map((e) => `  - ${e.interaction}: ${JSON.stringify(e.mismatch).slice(0, 600)}`).join('\n')
  } catch {}
  return `  ${output.slice(0, 2000)}`
}

/**
 * Verifies `pact` with the official Pact verifier (pact-core, given only the sandbox's URL and the
 * state-change URL) against a fresh sandbox: in recorded order, reversed, shuffled (seeded), each
 * interaction alone, and twice over against one sandbox. Throws naming the order (and the seed)
 * and the interactions that failed. Needs the Pact tools (test/support/needs.ts `noPactTools`).
 */
export async function verifyEveryOrder(pact: object, opts: VerifyOptions = {}): Promise<void> {
  const start = opts.start ?? startDefault
  const seed = opts.seed ?? 1
  const { interactions } = pact as Pactish
  const dir = mkdtempSync(join(tmpdir(), 'fleet-pact-orders-'))
  const run = async (label: string, files: (readonly object[])[]) => {
    const sandbox = await start()
    try {
      for (const [n, list] of files.entries()) {
        const file = join(dir, `${label.replace(/\W+/g, '-')}-${n}.json`)
        writeFileSync(file, JSON.stringify({ ...pact, interactions: list }))
        const verified = await verifyPact(file, sandbox.url)
        if (!verified.ok)
          throw new Error(
            `the pact fails verified ${label}${files.length > 1 ? ` (run ${n + 1} of ${files.length})` : ''}, in the order ${list.map((i) => JSON.stringify((i as { description: string }).description)).join(', ')}:\n${failures(verified.output)}`,
          )
      }
    } finally {
      await sandbox.close()
    }
  }
  try {
    for (const order of opts.orders ?? ORDERS) {
      if (order === 'recorded') await run('in recorded order', [interactions])
      if (order === 'reversed') await run('reversed', [[...interactions].reverse()])
      if (order === 'shuffled') await run(`shuffled with seed ${seed}`, [shuffled(interactions, seed)])
      if (order === 'twice') await run('twice against one sandbox', [interactions, interactions])
      if (order === 'alone') for (const i of interactions) await run(`alone (${JSON.stringify(i.description)})`, [[i]])
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
