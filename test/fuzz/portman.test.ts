import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { noPortman } from '../support/needs.js'
import { type Running, runtimes } from '../support/runtimes.js'
import { portmanPass } from './portman.js'

/**
 * A generic OpenAPI tester nobody here wrote (Portman, run by Newman) against the served
 * document, on both engines: signed in, as a portal contact, without a token and with a bad one.
 * Its fuzzed variations must each be refused, every answer's status must be one the document
 * lists, and every JSON answer must be JSON (issue 53; docs/bad-input.md).
 */
describe.skipIf(noPortman()).each(runtimes.filter((r) => r.http))('Portman and Newman against $name', (runtime) => {
  let running: Running
  let doc: Record<string, unknown>
  const dir = mkdtempSync(join(tmpdir(), 'fleet-sandbox-portman-'))
  beforeAll(async () => {
    running = await runtime.start()
    doc = await (await running.fetch('/__sandbox/openapi.json')).json()
  }, 120_000)
  afterAll(async () => {
    await running?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** What the document says of portalBearer: a magic link, its token from the outbox, verified (default world). */
  const portalSignIn = async () => {
    const json = { 'content-type': 'application/json' }
    const link = { email: 'owner@acme.test' }
    await running.fetch('/api/portal/auth/magic-link', { method: 'POST', headers: json, body: JSON.stringify(link) })
    const outbox = await (await running.fetch('/__sandbox/outbox?kind=magic-link')).json()
    const token = { token: outbox.outbox.at(-1).token }
    const verified = await running.fetch('/api/portal/auth/verify', {
      method: 'POST',
      headers: json,
      body: JSON.stringify(token),
    })
    return ((await verified.json()) as { data: { token: string } }).data.token
  }

  // Each pass: the requests and fuzzed variations below which it would prove nothing (about 90 operations).
  const passes = [
    { label: 'signed-in', holds: ['session', 'apiToken'], token: async () => 'atk_sandbox_admin', least: [400, 300] },
    // The portal's operations only: the other passes' control calls (a reset among them) end its session.
    { label: 'portal', holds: ['portalBearer'], token: portalSignIn, onlyOpened: true, least: [20, 15] },
    { label: 'no-token', holds: [], token: async () => undefined, least: [400, 300] },
    { label: 'bad-token', holds: [], token: async () => 'atk_not_a_token', least: [400, 300] },
  ]
  it.each(passes)(
    '$label: every fuzzed request refused, every status listed, every JSON answer JSON',
    async (pass) => {
      const result = await portmanPass(doc, {
        url: running.url!,
        dir,
        label: pass.label,
        holds: pass.holds,
        token: await pass.token(),
        onlyOpened: pass.onlyOpened,
      })
      console.log(
        `portman ${runtime.name} ${pass.label}: ${result.requests} requests (${result.variations} fuzzed), ${result.assertions} assertions, statuses ${JSON.stringify(result.statuses)}`,
      )
      expect(result.failures).toEqual([])
      expect(result.requests).toBeGreaterThan(pass.least[0])
      expect(result.variations).toBeGreaterThan(pass.least[1])
      expect(Object.keys(result.statuses).filter((s) => Number(s) >= 500)).toEqual([])
    },
    600_000,
  )
})
