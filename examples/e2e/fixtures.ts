import { test as base, expect } from '@playwright/test'
import { type PactOption, pactOf, writePactParts } from '../../src/adapters/playwright/pact.js'

export { expect }

/**
 * Every worker gets its own world: `x-sandbox-id` goes with every request of the worker, from
 * `request` and from the page alike, so parallel workers never see each other's writes.
 * Each test starts from a fresh copy of that world, and fails when the app broke the spec's
 * retry rules in it (`conduct`, docs/conduct.md). With the `pact` option (PACT_DIR in the
 * config), what each test did becomes the run's Pact file (fleet-sandbox/playwright's own
 * `test` does the same for its per-test worlds).
 */
export const test = base.extend<
  { world: string; token: string; conduct: 'fail' | 'off' },
  { sandboxId: string; pact: PactOption | undefined; pacts: Awaited<ReturnType<typeof pactOf>>[] }
>({
  sandboxId: [async ({}, use, workerInfo) => use(`e2e-worker-${workerInfo.workerIndex}`), { scope: 'worker' }],
  pact: [undefined, { option: true, scope: 'worker' }],
  pacts: [
    async ({ pact }, use) => {
      const kept: Awaited<ReturnType<typeof pactOf>>[] = []
      await use(kept)
      if (pact)
        writePactParts(
          pact.dir,
          kept.filter((p) => p !== undefined),
        )
    },
    { scope: 'worker' },
  ],
  extraHTTPHeaders: async ({ sandboxId }, use) => use({ 'x-sandbox-id': sandboxId }),
  // The app keeps the spec's retry rules: a test whose world has a finding fails (docs/conduct.md).
  conduct: ['fail', { option: true }],
  world: [
    async ({ request, sandboxId, pact, pacts, conduct }, use, testInfo) => {
      expect((await request.post('/__sandbox/reset', { data: {} })).status()).toBe(200)
      await use(sandboxId)
      if (conduct === 'fail') {
        const report = await (await request.get('/__sandbox/conduct')).json()
        await testInfo.attach('conduct.json', {
          body: JSON.stringify(report, null, 2),
          contentType: 'application/json',
        })
        expect(report.findings, "the app broke the spec's retry rules (docs/conduct.md)").toEqual([])
      }
      // The next test's reset clears the journal: this test's contract is taken now.
      if (pact) pacts.push(await pactOf(request, sandboxId, pact))
    },
    { auto: true },
  ],
  token: async ({ request }, use) => {
    const res = await request.post('/api/session-auth/sign-in/email', {
      data: { email: 'admin@fleet.test', password: 'sandbox' },
    })
    expect(res.status()).toBe(200)
    await use(res.headers()['set-auth-token'])
  },
})
