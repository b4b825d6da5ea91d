import { messagesOf, readWithBackoff, writeOnce } from './client'
import { expect, test } from './fixtures'

/**
 * The app keeps the spec's retry rules: this suite's worlds have no finding (fixtures.ts fails a
 * test whose world has one, `conduct: 'fail'`). The careless variant below does what the rules
 * forbid and asserts exactly the findings the sandbox gives for it (docs/conduct.md).
 */

// Failures a real backend cannot be made to give on demand: left out of the run's Pact file.
test.use({ pact: undefined })

const scenarios = async (request: import('@playwright/test').APIRequestContext, active: unknown[]) =>
  expect((await request.put('/__sandbox/scenarios', { data: { active } })).status()).toBe(200)

/** An open thread the admin may send on. */
async function openThread(request: import('@playwright/test').APIRequestContext, token: string) {
  const res = await request.get('/api/omnichannel/threads', { headers: { authorization: `Bearer ${token}` } })
  const threads = (await res.json()).data as { id: string; status: string; assignedTo: unknown }[]
  return threads.find((t) => t.status !== 'closed' && !t.assignedTo)!.id
}

test('reads through a rate limit with the backoff', async ({ request, token }) => {
  await scenarios(request, [{ name: 'rate-limited', options: { failures: 1, retryAfter: null } }])
  const res = await readWithBackoff(() =>
    request.get('/api/vehicle-types', { headers: { authorization: `Bearer ${token}` } }),
  )
  expect(res.status()).toBe(200)
})

test('checks an ambiguous write before sending it again', async ({ request, token }) => {
  const threadId = await openThread(request, token)
  await scenarios(request, ['commit-then-fail'])
  const text = `conduct ${Date.now()}`
  const sent = await writeOnce(
    () =>
      request.post('/api/omnichannel/send', {
        headers: { authorization: `Bearer ${token}` },
        data: { threadId, text },
      }),
    async () => (await messagesOf(request, token, threadId)).some((m) => m.text === text),
  )
  // The 500 came after the message went out: the read shows it, so it is not sent twice.
  expect(sent).toMatchObject({ applied: true, resent: false })
  expect((await messagesOf(request, token, threadId)).filter((m) => m.text === text)).toHaveLength(1)
})

test.describe('a careless client', () => {
  test.use({ conduct: 'off' })

  test('has exactly the findings of what it did wrong', async ({ request, token }) => {
    const auth = { authorization: `Bearer ${token}` }
    const threadId = await openThread(request, token)
    await scenarios(request, [{ name: 'rate-limited', options: { failures: 1, retryAfter: null } }])
    // Retried at once.
    for (let i = 0; i < 2; i++) await request.get('/api/vehicle-types', { headers: auth })
    await scenarios(request, ['commit-then-fail'])
    // Sent again blindly after its 500: the message goes out twice.
    for (let i = 0; i < 2; i++)
      expect(
        (await request.post('/api/omnichannel/send', { headers: auth, data: { threadId, text: 'twice' } })).status(),
      ).toBe(500)
    const { findings } = await (await request.get('/__sandbox/conduct')).json()
    expect(
      findings.map((f: { rule: string; operationId: string; spec: string }) => [f.rule, f.operationId, f.spec]),
    ).toEqual([
      ['retried-too-soon', 'listVehicleTypes', 'Limits Recommended backoff'],
      ['retried-write-blindly', 'sendOmnichannelMessage', 'Retry rules 3'],
    ])
  })
})
