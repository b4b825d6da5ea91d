import type { APIRequestContext } from '@playwright/test'
import { expect, test } from './fixtures'

/**
 * Two tests that must run at the same time in two workers. They meet at barriers kept in the
 * default world's request journal (the one world they share), write to their own worlds in
 * between, and each must see only its own writes.
 */
test.describe.configure({ mode: 'parallel' })

async function barrier(request: APIRequestContext, name: string, me: string) {
  // No x-sandbox-id header value: the default world; the arrival is the journaled query string.
  await request.get(`/api/auth/users/me?barrier=${name}&worker=${me}`, { headers: { 'x-sandbox-id': 'default' } })
  await expect
    .poll(
      async () => {
        const { requests } = await (
          await request.get('/__sandbox/requests', { headers: { 'x-sandbox-id': 'default' } })
        ).json()
        const arrived = requests
          .map((r: { query: string }) => new URLSearchParams(r.query))
          .filter((q: URLSearchParams) => q.get('barrier') === name)
        return new Set(arrived.map((q: URLSearchParams) => q.get('worker'))).size
      },
      { timeout: 60_000, message: `both workers at barrier ${name} (needs workers >= 2)` },
    )
    .toBe(2)
}

for (const writes of [1, 2]) {
  test(`worker writing ${writes} review(s) sees only its own`, async ({ request, token, sandboxId }) => {
    const auth = { authorization: `Bearer ${token}` }
    const count = async () =>
      (await (await request.get('/api/notifications?limit=1', { headers: auth })).json()).data.unreviewedCount as number
    const initial = await count()
    await barrier(request, 'before-writes', sandboxId)
    const unreviewed = (
      await (await request.get(`/api/notifications?status=unreviewed&limit=${writes}`, { headers: auth })).json()
    ).data.notifications
    for (const n of unreviewed)
      expect(
        (await request.patch(`/api/notifications/${n.id}`, { headers: auth, data: { status: 'reviewed' } })).status(),
      ).toBe(200)
    await barrier(request, 'after-writes', sandboxId)
    expect(await count()).toBe(initial - writes)
  })
}
