import type { APIRequestContext } from '@playwright/test'
import type { Send } from '../../core/admin/client.js'
import { type PactOption, readPact } from '../../core/admin/pact.js'
import type { Pact } from '../../core/contracts/pact.js'
import { SANDBOX_ID_HEADER } from '../../core/sandbox/sandbox-id.js'

export { writePactParts } from '../node/pact-files.js'
export type { Pact, PactOption }

/** Playwright's `request` as the control API's way of sending, to the world `sandboxId` names. */
export const requestSend =
  (request: APIRequestContext, sandboxId: string): Send =>
  async (method, path, data) => {
    const res = await request.fetch(path, {
      method,
      headers: { [SANDBOX_ID_HEADER]: sandboxId },
      ...(data === undefined ? {} : { data }),
    })
    return { status: res.status(), text: () => res.text(), header: (name) => res.headers()[name] ?? null }
  }

/** The Pact file of one world, or none when the world had no API traffic (its 409). */
export const pactOf = (request: APIRequestContext, sandboxId: string, option: PactOption): Promise<Pact | undefined> =>
  readPact(requestSend(request, sandboxId), option, 'fleet-sandbox/playwright')
