import type { SandboxApp } from '../app/app.js'
import { type Pact, buildPact } from '../contracts/pact.js'
import { SANDBOX_VERSION } from '../control/inspector.js'
import { HttpError } from '../http/reply.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { Send } from './client.js'

// The entries' `pact` option (docs/contracts.md): `fleet-sandbox/node` takes its worlds' pacts
// before each `reset()`, Playwright's fixture each test's world after the test. Written once for
// both; the file is each entry's to write (writePactParts, in Node).

/** The `pact` option: where the run's Pact file goes (start the run with the folder empty). */
export interface PactOption {
  /** The folder the Pact file is written in (`fleet-web-fleet-backoffice.json`). */
  dir: string
  consumer?: string
  provider?: string
  /** Interactions a sandbox scenario shaped: kept (`include`, the default), `pending: true`, or left out (`exclude`). */
  scenarios?: 'include' | 'pending' | 'exclude'
}

/** The pacts of a suite's worlds in process, kept before each reset (it clears the journals). */
export function pactRecorder(app: SandboxApp, option: PactOption) {
  const kept: Pact[] = []
  const names = {
    consumer: option.consumer ?? 'fleet-web',
    provider: option.provider ?? 'fleet-backoffice',
    scenarios: option.scenarios ?? 'include',
  }
  if (!['include', 'pending', 'exclude'].includes(names.scenarios))
    throw new TypeError(
      `pact.scenarios: must be one of "include", "pending", "exclude" (got ${String(names.scenarios)})`,
    )
  const keep = (worlds: readonly Sandbox[]) => {
    for (const world of worlds) {
      try {
        kept.push(buildPact(world, (m, p) => app.matcher.match(m, p), names, SANDBOX_VERSION))
      } catch (error) {
        // A world with no traffic has no contract to give.
        if (!(error instanceof HttpError && error.status === 409)) throw error
      }
    }
  }
  return {
    /** The default world and every `x-sandbox-id` world alive. */
    async keep(main: Sandbox) {
      keep([main, ...(await Promise.all(app.sandboxes.ids().map((id) => app.sandboxes.get(id))))])
    },
    /** Synchronous (a suite's `close()` is): the default world's traffic since the last reset, then every pact kept. */
    all(main: Sandbox): readonly Pact[] {
      keep([main])
      return kept
    },
  }
}

/** The Pact file of the world `send` names over the control API, or none when it had no API traffic (its 409). */
export async function readPact(send: Send, option: PactOption, who: string): Promise<Pact | undefined> {
  const query = new URLSearchParams()
  for (const name of ['consumer', 'provider', 'scenarios'] as const) if (option[name]) query.set(name, option[name])
  const path = `/__sandbox/contracts/pact${query.size ? `?${query}` : ''}`
  const res = await send('GET', path)
  if (res.status === 409) return undefined
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${who}: GET ${path} answered ${res.status}: ${text}`)
  return JSON.parse(text) as Pact
}
