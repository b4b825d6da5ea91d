import { type APIRequestContext, test as base, expect } from '@playwright/test'
import { AdminClient } from '../../core/admin/client.js'
import { SANDBOX_ID_COOKIE, SANDBOX_ID_HEADER, sandboxIdFrom } from '../../core/sandbox/sandbox-id.js'
import type { ScenarioInput } from '../../own-scenarios/input.js'
import { type Pact, type PactOption, pactOf, requestSend, writePactParts } from './pact.js'
import { type ConductOption, conductOption, findingsText, readConduct } from '../../core/admin/conduct.js'

export type { ConductOption } from '../../core/admin/conduct.js'

export { type PactOption, pactOf, writePactParts } from './pact.js'

/**
 * `fleet-sandbox/playwright`: Playwright's `test` and `expect`, extended so each test works in
 * its own world. The test's `sandboxId` goes with every request of its browser context, both as
 * the `x-sandbox-id` header and as the `sandbox-id` cookie (a server-rendered page reads the
 * cookie with `fleet-sandbox/ssr`), and with `request`; `sandbox` drives that world's control API.
 */
export { expect }

export type * from '../admin-types.js'

/** The admin interface every entry hands out (docs/control-api.md, "From code"): the control API of one world, over Playwright's `request`. */
export class SandboxControl extends AdminClient<ScenarioInput> {
  constructor(
    readonly request: APIRequestContext,
    readonly sandboxId: string,
  ) {
    super(requestSend(request, sandboxId), WHO)
  }
}

export interface SandboxFixtures {
  /** This test's world: unique per test and retry, created from the seed on first use. */
  sandboxId: string
  /** The control API of this test's world. */
  sandbox: SandboxControl
}

export interface SandboxOptions {
  /** Where the sandbox answers, when it is not `baseURL` (an app server in front of it). */
  sandboxURL: string | undefined
  /**
   * The app's conduct in the test's world (docs/conduct.md), read after the test and attached to
   * it (`conduct.json`): `fail` fails a test whose world has findings, `warn` annotates it, `off`
   * (the default) reads nothing.
   */
  conduct: ConductOption
}

/** Worker options: `pact: { dir }` writes the Pact file of every test's world after the run, every worker's merged (docs/contracts.md). */
export interface SandboxWorkerOptions {
  pact: PactOption | undefined
  /** The pacts of this worker's tests so far (kept after each test, written when the worker ends). */
  pacts: Pact[]
}

let next = 0
const WHO = 'fleet-sandbox/playwright'

export const test = base.extend<
  SandboxFixtures & SandboxOptions & { pactOfTest: void; conductOfTest: void },
  SandboxWorkerOptions
>({
  sandboxURL: [undefined, { option: true }],
  conduct: ['off', { option: true }],
  conductOfTest: [
    async ({ conduct, sandboxId, playwright, baseURL, sandboxURL }, use, testInfo) => {
      await use()
      if (conductOption(conduct, WHO) === 'off') return
      const request = await playwright.request.newContext({ baseURL: sandboxURL ?? baseURL })
      try {
        const report = await readConduct(requestSend(request, sandboxId), WHO)
        const body = JSON.stringify(report, null, 2)
        await testInfo.attach('conduct.json', { body, contentType: 'application/json' })
        const text = findingsText([{ findings: report.findings }], ` in ${sandboxId}`)
        if (text && conduct === 'warn') testInfo.annotations.push({ type: 'warning', description: `${WHO}: ${text}` })
        else if (text) throw new Error(`${WHO}: ${text}`)
      } finally {
        await request.dispose()
      }
    },
    { auto: true },
  ],
  pact: [undefined, { option: true, scope: 'worker' }],
  pacts: [
    async ({ pact }, use) => {
      const kept: Pact[] = []
      await use(kept)
      if (pact) writePactParts(pact.dir, kept)
    },
    { scope: 'worker' },
  ],
  pactOfTest: [
    async ({ pact, pacts, sandboxId, playwright, baseURL, sandboxURL }, use) => {
      await use()
      if (!pact) return
      // After the test, from the world it used: a context of its own (a test without the option makes none).
      const request = await playwright.request.newContext({ baseURL: sandboxURL ?? baseURL })
      const made = await pactOf(request, sandboxId, pact)
      await request.dispose()
      if (made) pacts.push(made)
    },
    { auto: true },
  ],
  sandboxId: async ({}, use, testInfo) => {
    await use(sandboxIdFrom(['pw', testInfo.workerIndex, testInfo.testId, testInfo.retry, next++]))
  },
  extraHTTPHeaders: async ({ extraHTTPHeaders, sandboxId }, use) => {
    await use({ ...extraHTTPHeaders, [SANDBOX_ID_HEADER]: sandboxId })
  },
  context: async ({ context, sandboxId, baseURL, sandboxURL }, use) => {
    const urls = [...new Set([baseURL, sandboxURL].filter((u): u is string => Boolean(u)))]
    if (urls.length) await context.addCookies(urls.map((url) => ({ name: SANDBOX_ID_COOKIE, value: sandboxId, url })))
    await use(context)
  },
  sandbox: async ({ playwright, sandboxId, baseURL, sandboxURL }, use) => {
    const request = await playwright.request.newContext({
      baseURL: sandboxURL ?? baseURL,
      extraHTTPHeaders: { [SANDBOX_ID_HEADER]: sandboxId },
    })
    await use(new SandboxControl(request, sandboxId))
    await request.dispose()
  },
})
