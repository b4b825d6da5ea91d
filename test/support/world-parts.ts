import { expect } from 'vitest'
import { WORLD_PARTS, type WorldPart } from '../../src/core/sandbox/parts.js'

/**
 * How a test makes each part of a world non-empty, through the front door (the control API and
 * the API), for the tests generated from the parts list (test/world/). A part declared in
 * src/core/sandbox/parts.ts without a way here fails those tests, naming it: every part is
 * filled, then taken through every operation a world goes through.
 */
export type Call = { method: string; path: string; body?: unknown; signedIn?: true }
export const FILL: Record<string, Call[] | { always: string }> = {
  seed: { always: 'a world always has its seed' },
  signingKey: { always: 'a world always has its signing key' },
  // Held still first, so every later part is compared at one instant.
  clock: [{ method: 'POST', path: '/__sandbox/clock', body: { advanceBy: '2h', freeze: true } }],
  sessions: [{ method: 'GET', path: '/api/auth/users/me', signedIn: true }],
  journal: [{ method: 'GET', path: '/api/layers', signedIn: true }],
  records: [{ method: 'POST', path: '/api/v1/billing/invoices/inv_acme_0014/publish', signedIn: true }],
  nextId: [
    {
      method: 'POST',
      path: '/api/v1/billing/invoices/inv_acme_0009/register-payment',
      body: { amount: 1000, date: '2026-11-20', method: 'card' },
      signedIn: true,
    },
  ],
  // A DTE's TrackID is drawn from the world's seeded generator.
  draws: [{ method: 'POST', path: '/api/v1/billing/invoices/inv_acme_0013/emit-dte', body: {}, signedIn: true }],
  outbox: [{ method: 'POST', path: '/api/auth/password-reset/request', body: { email: 'viewer@fleet.test' } }],
  overrides: [
    {
      method: 'POST',
      path: '/__sandbox/overrides',
      body: {
        match: { method: 'GET', path: '/api/notification-config/rules' },
        respond: { status: 503, body: { message: 'parts' } },
        times: 5,
        name: 'parts',
      },
    },
  ],
  scenarios: [
    {
      method: 'PUT',
      path: '/__sandbox/scenarios',
      body: { active: [{ name: 'rate-limited', options: { failures: 0, routes: ['listVehicleTypes'] } }] },
    },
  ],
  // rate-limited counts each caller's requests in the world's scenario state.
  scenarioState: [{ method: 'GET', path: '/api/vehicle-types', signedIn: true }],
  oauth: [
    {
      method: 'POST',
      path: '/oauth/register',
      body: { client_name: 'every part', redirect_uris: ['http://127.0.0.1:5173/callback'] },
    },
  ],
}

export type Send = (call: Call, token: string | undefined) => Promise<{ status: number; text: string }>

/** Every part made non-empty in one world: each part's calls, in the list's order (the clock first). */
export async function fillEveryPart(send: Send, signIn: () => Promise<string>): Promise<void> {
  const token = await signIn()
  const order = ['clock', ...WORLD_PARTS.map((p) => p.key).filter((k) => k !== 'clock')]
  for (const key of order) {
    const fill = FILL[key]
    expect(
      fill,
      `${key}: no way to fill it in test/support/world-parts.ts (every part declared in parts.ts needs one)`,
    ).toBeDefined()
    if (!Array.isArray(fill)) continue
    for (const call of fill) {
      const res = await send(call, call.signedIn ? token : undefined)
      expect(
        res.status,
        `${key}: ${call.method} ${call.path} answered ${res.status}: ${res.text.slice(0, 300)}`,
      ).toBeLessThan(400)
    }
  }
}

type Snapshot = Record<string, any>

/** A part's fields of a snapshot. */
export const fieldsOf = (part: WorldPart, snapshot: Snapshot) =>
  Object.fromEntries(part.fields.map((f) => [f, snapshot[f]]))

/**
 * Each part's fields of two snapshots compared, the failure naming the part and the operation.
 * `aside`: what the operation is allowed to leave different, by the contract (docs/contract.md
 * "One world, every part": tokens and signing keys aside).
 */
export function expectSameParts(
  after: Snapshot,
  before: Snapshot,
  operation: string,
  parts: readonly WorldPart[] = WORLD_PARTS,
): void {
  for (const part of parts)
    expect(comparable(fieldsOf(part, after)), `${part.key} after ${operation}`).toEqual(
      comparable(fieldsOf(part, before)),
    )
}

/** Every part the fill made differ from a fresh world's, named when one did not. */
export function expectFilled(filled: Snapshot, fresh: Snapshot): void {
  for (const part of WORLD_PARTS) {
    if (!Array.isArray(FILL[part.key])) continue
    expect(
      JSON.stringify(fieldsOf(part, filled)),
      `${part.key}: its fill (test/support/world-parts.ts) left it as in a fresh world`,
    ).not.toEqual(JSON.stringify(fieldsOf(part, fresh)))
  }
}

/** Tokens a replay mints anew, by their order; a password set since the seed, never carried. */
export function comparable(value: unknown): unknown {
  const seen = new Map<string, number>()
  // Sessions as one mark (a base carries none: repro/log.ts withoutSessions).
  const text = JSON.stringify(value).replace(/\bses_[0-9a-f]{16,}|\{\{session\}\}/g, '<session>')
  return JSON.parse(
    text.replace(/\b(mlk|prt|mnt)_[0-9a-f]{16,}/g, (t) => `<token ${seen.get(t) ?? seen.set(t, seen.size).size - 1}>`),
  )
}
