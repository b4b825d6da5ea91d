import { expect, test } from '../../../src/adapters/playwright/index.js'

/** Only `request`: a contract needs no browser. One plain interaction, one a scenario shaped. */
const auth = { authorization: 'Bearer atk_sandbox_admin' }

test('reads the layers', async ({ request }) => {
  expect((await request.get('/api/layers', { headers: auth })).status()).toBe(200)
})

test('meets a rate limit', async ({ request }) => {
  const res = await request.get('/api/layers', { headers: { ...auth, 'x-sandbox-scenario': 'rate-limited' } })
  expect(res.status()).toBe(429)
})
