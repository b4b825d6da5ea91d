import { expect, test } from './fixtures'

// The page's own requests carry the worker's x-sandbox-id too: an app under test talks to its world.
test('the page reads Retry-After from a 429 of the rate-limited world', async ({ page, request }) => {
  expect(
    (
      await request.put('/__sandbox/scenarios', {
        data: { active: [{ name: 'rate-limited', options: { retryAfter: 2 } }] },
      })
    ).status(),
  ).toBe(200)
  await page.goto('/__sandbox/health')
  const answer = await page.evaluate(async () => {
    const res = await fetch('/api/notifications')
    return { status: res.status, retryAfter: res.headers.get('retry-after') }
  })
  expect(answer).toEqual({ status: 429, retryAfter: '2' })
})

test('the page signs in and lists notifications', async ({ page }) => {
  await page.goto('/__sandbox/health')
  const count = await page.evaluate(async () => {
    const signIn = await fetch('/api/session-auth/sign-in/email', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'operator@fleet.test', password: 'sandbox' }),
    })
    const token = signIn.headers.get('set-auth-token')
    const res = await fetch('/api/notifications', { headers: { authorization: `Bearer ${token}` } })
    return (await res.json()).data.notifications.length
  })
  expect(count).toBe(20)
})
