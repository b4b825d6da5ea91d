import { readFileSync, writeFileSync } from 'node:fs'
import { expect } from 'vitest'
import { compare, verifyPact } from '../../contracts/pact-tools.js'
import { runtimes } from '../../support/runtimes.js'

/** The e2e example's Pact file: both workers' tests in it, verified against a sandbox nobody used. */
export async function checkE2ePact(file: string): Promise<void> {
  const pact = JSON.parse(readFileSync(file, 'utf8'))
  const descriptions = pact.interactions.map((i: { description: string }) => i.description)
  // From api.spec.ts (worker one or two) and page.spec.ts: every worker's world merged.
  expect(descriptions).toEqual(
    expect.arrayContaining([
      'signInEmail, no scenario, status 200',
      'updateNotificationStatus, no scenario, status 200',
      'deleteLayer, no scenario, status 404',
      'passwordResetRequest, no scenario, status 200',
      'listNotifications, scenario rate-limited, status 429',
    ]),
  )
  const fresh = await runtimes.find((r) => r.name.startsWith('hono'))!.start()
  try {
    const verified = await verifyPact(file, fresh.url!)
    expect(verified.ok, verified.output).toBe(true)
    const changed = structuredClone(pact)
    changed.interactions.find((i: { description: string }) =>
      i.description.startsWith('deleteLayer, no scenario, status 404'),
    ).response.status = 410
    writeFileSync(`${file}.changed.json`, JSON.stringify(changed))
    expect((await verifyPact(`${file}.changed.json`, fresh.url!)).ok).toBe(false)
    const doc = await (await fresh.fetch('/__sandbox/openapi.json')).json()
    const results = await compare(doc, pact)
    expect(
      results.filter((r) => r.type === 'error'),
      JSON.stringify(results, null, 1),
    ).toEqual([])
  } finally {
    await fresh.close()
  }
}
