import type { SandboxApp } from '../../core/app/app.js'
import { type Pact, buildPact } from '../../core/contracts/pact.js'
import { SANDBOX_VERSION } from '../../core/control/inspector.js'
import { HttpError } from '../../core/http/reply.js'
import type { Sandbox } from '../../core/sandbox/sandbox.js'
import { writePactParts } from './pact-files.js'

export interface PactOptions {
  /** The folder the Pact file is written in (`fleet-web-fleet-backoffice.json`); start a run with it empty. */
  dir: string
  consumer?: string
  provider?: string
  /** Interactions a sandbox scenario shaped: kept (`include`, the default), `pending: true`, or left out (`exclude`). */
  scenarios?: 'include' | 'pending' | 'exclude'
}

/** The pacts of a suite's worlds, kept before each reset (it clears the journals) and written on close. */
export function pactRecorder(app: SandboxApp, options: PactOptions) {
  const kept: Pact[] = []
  const names = {
    consumer: options.consumer ?? 'fleet-web',
    provider: options.provider ?? 'fleet-backoffice',
    scenarios: options.scenarios ?? 'include',
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
    /** `close()` is not async: the default world's traffic since the last reset, then the file. */
    write(main: Sandbox) {
      keep([main])
      return writePactParts(options.dir, kept)
    },
  }
}
