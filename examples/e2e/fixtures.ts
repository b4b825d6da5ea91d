import { test as base, expect } from '@playwright/test'

export { expect }

/**
 * Every worker gets its own world: `x-sandbox-id` goes with every request of the worker, from
 * `request` and from the page alike, so parallel workers never see each other's writes.
 * Each test starts from a fresh copy of that world.
 */
export const test = base.extend<{ world: string; token: string }, { sandboxId: string }>({
  sandboxId: [async ({}, use, workerInfo) => use(`e2e-worker-${workerInfo.workerIndex}`), { scope: 'worker' }],
  extraHTTPHeaders: async ({ sandboxId }, use) => use({ 'x-sandbox-id': sandboxId }),
  world: [
    async ({ request, sandboxId }, use) => {
      expect((await request.post('/__sandbox/reset', { data: {} })).status()).toBe(200)
      await use(sandboxId)
    },
    { auto: true },
  ],
  token: async ({ request }, use) => {
    const res = await request.post('/api/session-auth/sign-in/email', { data: { email: 'admin@fleet.test', password: 'sandbox' } })
    expect(res.status()).toBe(200)
    await use(res.headers()['set-auth-token'])
  },
})
