import type { APIRequestContext } from '@playwright/test'
import type { Pact } from '../../core/contracts/pact.js'
import { SANDBOX_ID_HEADER } from '../../core/sandbox/sandbox-id.js'

export { writePactParts } from '../node/pact-files.js'
export type { Pact }

/** The `pact` option: where the run's Pact file goes (start the run with the folder empty). */
export interface PactOption {
  dir: string
  consumer?: string
  provider?: string
  /** Interactions a sandbox scenario shaped: kept (`include`, the default), `pending: true`, or left out (`exclude`). */
  scenarios?: 'include' | 'pending' | 'exclude'
}

/** The Pact file of one world, or none when the world had no API traffic (its 409). */
export async function pactOf(
  request: APIRequestContext,
  sandboxId: string,
  option: PactOption,
): Promise<Pact | undefined> {
  const query = new URLSearchParams()
  if (option.consumer) query.set('consumer', option.consumer)
  if (option.provider) query.set('provider', option.provider)
  if (option.scenarios) query.set('scenarios', option.scenarios)
  const res = await request.get(`/__sandbox/contracts/pact${query.size ? `?${query}` : ''}`, {
    headers: { [SANDBOX_ID_HEADER]: sandboxId },
  })
  if (res.status() === 409) return undefined
  if (!res.ok())
    throw new Error(`fleet-sandbox/playwright: the pact of ${sandboxId}: ${res.status()} ${await res.text()}`)
  return (await res.json()) as Pact
}
