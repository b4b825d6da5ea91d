import { describe, expect, it } from 'vitest'
import { canonical, sha256 } from '../../src/core/time-travel/bundle.js'
import { INVOICES, acme, inv } from '../billing/seeded.js'
import { generator, type Random } from '../support/generator.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/**
 * A repro bundle is a file someone hands you: untrusted input. Generated edits of a real bundle,
 * most of them signed again (as someone who means it would), posted to a sandbox with a world
 * of its own: each answer is a 200 or a 400/409/413 naming a field, and a refused replay leaves
 * the world as it was. In process (msw/node): the pipeline is the one every runtime runs.
 */
const TOTAL = 300
const SEED = 34

const ODD: (() => unknown)[] = [
  () => null,
  () => undefined,
  () => -1,
  () => 0,
  () => 1e308,
  () => 1.5,
  () => '',
  () => 'x'.repeat(5000),
  () => [],
  () => ({}),
  () => true,
  () => '/__sandbox/reset',
  () => '../../etc/passwd',
  () => '2026-13-45T99:99:99Z',
  () => '{{minted:99}}',
  () => ({ kind: 'session', user: 'usr_nobody', impersonator: null }),
  () => ({ __proto__: { polluted: true } }),
  () => 'GET',
  () => 'DELETE',
  () => '%zz',
]

/** Every path into the value: the places an edit may land. */
function paths(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at)
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out))
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out)
  return out
}

function edit(bundle: Record<string, unknown>, r: Random): Record<string, unknown> {
  const copy = structuredClone(bundle)
  for (let n = 1 + r.int(3); n > 0; n--) {
    const all = paths(copy).filter((p) => p.length > 0 && p[0] !== 'checksum')
    const place = r.pick(all)
    const parent = place.slice(0, -1).reduce<any>((v, k) => v[k], copy)
    const key = place.at(-1)!
    const roll = r.next()
    if (roll < 0.25) Array.isArray(parent) ? parent.splice(Number(key), 1) : delete parent[key]
    else if (roll < 0.35 && Array.isArray(parent)) parent.splice(Number(key), 0, structuredClone(parent[Number(key)]))
    else if (roll < 0.45 && !Array.isArray(parent)) parent[`extra${r.int(3)}`] = r.pick(ODD)()
    else parent[key] = r.pick(ODD)()
  }
  return copy
}

async function signed(bundle: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { checksum: _, ...rest } = bundle
  return { ...rest, checksum: await sha256(canonical(rest)) }
}

/** The world a replay may replace: all but the journal (a refusal may not be journaled, an answer is). */
const world = (snapshot: Record<string, unknown>) => {
  const { journal: _, ...rest } = snapshot
  return JSON.stringify(rest)
}

describe('repro bundles, fuzzed (msw/node)', () => {
  const rt = useSandbox(runtimes.find((r) => r.name.startsWith('msw/node'))!)

  it(`${TOTAL} edited bundles: each a 200 or a 4xx naming what is wrong, and a refusal changes nothing`, async () => {
    const a = await rt.isolated()
    expect((await a.post(inv(acme.drafts[0], 'publish'))).status).toBe(200)
    expect((await a.post(inv(acme.noDte, 'emit-dte'), {})).status).toBeLessThan(300)
    expect((await a.control.post('/clock', { advanceBy: '2h' })).status).toBe(200)
    expect(
      (await a.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 1000, date: '2026-11-20', method: 'card' }))
        .status,
    ).toBe(200)
    await a.scenarios(['dte-pending'])
    expect((await a.get(INVOICES)).status).toBe(200)
    const made = await a.control.get('/repro')
    expect(made.status, await made.text()).toBe(200)
    const bundle = made.body as Record<string, unknown>

    const target = await rt.isolated()
    expect((await target.post(inv(acme.unpaidAccepted, 'register-payment'), { amount: 5 })).status).toBe(200)
    // A running clock would move the snapshot between two reads.
    expect((await target.control.post('/clock', { freeze: true })).status).toBe(200)
    let before = world((await target.control.get('/snapshot')).body)
    const r = generator(SEED)
    const seen = new Map<number, number>()
    for (let i = 0; i < TOTAL; i++) {
      const edited = edit(bundle, r)
      const body = r.next() < 0.9 ? await signed(edited) : edited
      const res = await target.control.post('/repro', body)
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1)
      const what = `edit ${i}: ${res.status} ${(await res.text()).slice(0, 300)}`
      expect([200, 400, 409, 413], what).toContain(res.status)
      const after = world((await target.control.get('/snapshot')).body)
      if (res.status === 200) {
        // The bundle's world replaced the target's, its clock too (running in this bundle).
        expect((await target.control.post('/clock', { freeze: true })).status).toBe(200)
        before = world((await target.control.get('/snapshot')).body)
        continue
      }
      // A message that names where: `field.path: rule` (or `repro: why`).
      expect(res.body.message, what).toMatch(/^[\w.[\]-]+: \S/)
      if (after !== before) {
        const b = JSON.parse(before),
          c = JSON.parse(after)
        const diff = Object.keys({ ...b, ...c }).filter((k) => JSON.stringify(b[k]) !== JSON.stringify(c[k]))
        expect(
          diff.map((k) => `${k}: ${JSON.stringify(b[k]).slice(0, 200)} -> ${JSON.stringify(c[k]).slice(0, 200)}`),
          what,
        ).toEqual([])
      }
    }
    // The edits reach past the checksum and the schema: some replays run and are refused for what they rebuild.
    expect(seen.get(400)).toBeGreaterThan(TOTAL / 4)
    expect(seen.get(409) ?? 0).toBeGreaterThan(0)
  })
})
