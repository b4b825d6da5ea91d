import { expect, test } from 'fleet-sandbox/playwright'

/**
 * Each test has its own world (`sandboxId`), sent by its browser as the `x-sandbox-id` header
 * and the `sandbox-id` cookie; the app's server passes it on to its own API calls
 * (app/sandbox.server.ts, fleet-sandbox/ssr). The first two tests run at once in two workers,
 * write through the server-rendered page, and each reads back only its own write.
 */
test.describe.configure({ mode: 'parallel' })

const SANDBOX = process.env.FLEET_SANDBOX_URL ?? 'http://127.0.0.1:4010'

/** Both tests wait here for each other; arrivals are kept in the default world's journal, the one they share. */
async function barrier(name: string, me: string) {
  await fetch(`${SANDBOX}/api/auth/users/me?barrier=${name}&worker=${me}`)
  await expect
    .poll(
      async () => {
        const { requests } = (await (await fetch(`${SANDBOX}/__sandbox/requests`)).json()) as {
          requests: { query: string }[]
        }
        const here = requests.map((r) => new URLSearchParams(r.query)).filter((q) => q.get('barrier') === name)
        return new Set(here.map((q) => q.get('worker'))).size
      },
      { timeout: 60_000, message: `both workers at barrier ${name} (needs workers >= 2)` },
    )
    .toBe(2)
}

for (const which of [0, 1]) {
  test(`worker deleting layer ${which} through the page sees only its own write`, async ({
    page,
    context,
    sandbox,
    sandboxId,
  }) => {
    await page.goto('/')
    await expect(page.getByTestId('world')).toHaveText(sandboxId)
    const ids = await page.locator('li[data-id]').evaluateAll((items) => items.map((li) => li.getAttribute('data-id')!))
    const [mine, theirs] = which === 0 ? [ids[0], ids[1]] : [ids[1], ids[0]]

    await barrier('before-writes', sandboxId)
    await page.locator(`li[data-id="${mine}"]`).getByRole('button', { name: 'Delete' }).click()
    await expect(page.locator(`li[data-id="${mine}"]`)).toHaveCount(0)
    await barrier('after-writes', sandboxId)

    // Read back with the cookie alone, as a link followed by hand sends it: still this test's world.
    await context.setExtraHTTPHeaders({})
    await page.reload()
    await expect(page.getByTestId('world')).toHaveText(sandboxId)
    await expect(page.locator(`li[data-id="${mine}"]`)).toHaveCount(0)
    await expect(page.locator(`li[data-id="${theirs}"]`)).toHaveCount(1)
    const deletes = (await sandbox.journal()).filter((entry) => entry.method === 'DELETE')
    expect(deletes.map((entry) => entry.path)).toEqual([`/api/layers/${mine}`])
  })
}

test('the control client shapes what the server renders for this world', async ({ page, sandbox }) => {
  await sandbox.use('empty')
  expect((await sandbox.health()).scenarios).toEqual(['empty'])
  await page.goto('/')
  await expect(page.locator('h1')).toHaveText('Layers')
  await expect(page.locator('li[data-id]')).toHaveCount(0)
  await sandbox.reset()
  await page.reload()
  await expect(page.locator('li[data-id]').first()).toBeVisible()
})
