import { expect, test } from './fixtures'

test('signs in, reviews a notification, and the journal shows exactly what this test did', async ({
  request,
  token,
}) => {
  const auth = { authorization: `Bearer ${token}` }
  const list = await (await request.get('/api/notifications?status=unreviewed&limit=1', { headers: auth })).json()
  const { unreviewedCount, notifications } = list.data
  expect(
    (
      await request.patch(`/api/notifications/${notifications[0].id}`, { headers: auth, data: { status: 'reviewed' } })
    ).status(),
  ).toBe(200)
  const after = await (await request.get('/api/notifications?limit=1', { headers: auth })).json()
  expect(after.data.unreviewedCount).toBe(unreviewedCount - 1)

  const { requests } = await (await request.get('/__sandbox/requests')).json()
  expect(
    requests.map((r: { method: string; path: string; status: number }) => `${r.method} ${r.path} ${r.status}`),
  ).toEqual([
    'POST /api/session-auth/sign-in/email 200',
    'GET /api/notifications 200',
    `PATCH /api/notifications/${notifications[0].id} 200`,
    'GET /api/notifications 200',
  ])
})

test('a password reset lands in the outbox with its token', async ({ request }) => {
  expect(
    (await request.post('/api/auth/password-reset/request', { data: { email: 'admin@fleet.test' } })).status(),
  ).toBe(200)
  const { outbox } = await (await request.get('/__sandbox/outbox?kind=password-reset')).json()
  expect(outbox).toHaveLength(1)
  expect(outbox[0]).toMatchObject({ kind: 'password-reset', to: 'admin@fleet.test', token: expect.any(String) })
})

test('a deleted layer stays deleted in this world only', async ({ request, token, playwright, baseURL }) => {
  const auth = { authorization: `Bearer ${token}` }
  const layers = (await (await request.get('/api/layers', { headers: auth })).json()).data
  expect((await request.delete(`/api/layers/${layers[0].id}`, { headers: auth })).status()).toBe(200)
  expect((await request.delete(`/api/layers/${layers[0].id}`, { headers: auth })).status()).toBe(404)

  // The default world (no x-sandbox-id) never saw it.
  // A context made in a test inherits the config's `use` (our header too): name the default world.
  const plain = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { 'x-sandbox-id': 'default' } })
  const res = await plain.post('/api/session-auth/sign-in/email', {
    data: { email: 'admin@fleet.test', password: 'sandbox' },
  })
  const others = await (
    await plain.get('/api/layers', { headers: { authorization: `Bearer ${res.headers()['set-auth-token']}` } })
  ).json()
  expect(others.data.map((l: { id: string }) => l.id)).toContain(layers[0].id)
  await plain.dispose()
})

test('a scenario for one request: x-sandbox-scenario', async ({ request, token }) => {
  const res = await request.get('/api/notifications', {
    headers: { authorization: `Bearer ${token}`, 'x-sandbox-scenario': 'rate-limited' },
  })
  expect(res.status()).toBe(429)
  expect(res.headers()['retry-after']).toBe('1')
  expect(res.headers()['x-sandbox-fault']).toBe('rate-limited')
})
