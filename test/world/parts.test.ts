import { describe, expect, it } from 'vitest'
import { WORLD_PARTS, readParts } from '../../src/core/sandbox/parts.js'
import { worldParts } from '../../src/core/time-travel/bundle.js'
import { createServedApp } from '../../src/apps/server-app.js'
import { MemoryBackend } from '../../src/core/persist/backend.js'
import { PersistedSandbox } from '../../src/core/persist/persisted.js'
import { snapshotOf } from '../../src/core/persist/snapshot-codec.js'
import type { SandboxApp } from '../../src/core/app/app.js'
import { rewind } from '../../src/core/time-travel/rewind.js'
import type { Client } from '../support/client.js'
import { NOW, runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { FILL, comparable, expectFilled, expectSameParts, fieldsOf, fillEveryPart } from '../support/world-parts.js'

/**
 * Tests generated from the list of a world's parts (src/core/sandbox/parts.ts, docs/contract.md
 * "One world, every part"): each part made non-empty, then taken through every operation a world
 * goes through. A part declared later is taken through them too; one that does not say how it
 * does an operation fails here, naming the part and the operation.
 */
const OPERATIONS = ['read', 'check', 'write', 'reset', 'take', 'digest', 'store', 'rewind', 'bundle', 'bound'] as const

describe('every part says how it does every operation', () => {
  it.each(WORLD_PARTS.map((p) => [p.key, p] as const))('%s', (key, part) => {
    for (const op of OPERATIONS) {
      const how = (part as unknown as Record<string, unknown>)[op]
      expect(how, `${key}: does not say how it does ${op}`).toBeDefined()
      // An operation a part does not take part in says why, in words.
      if (how && typeof how === 'object' && ('skip' in how || 'kept' in how))
        expect(String(Object.values(how)[0]).length, `${key}: ${op} gives no reason`).toBeGreaterThan(10)
    }
    expect(part.fields.length, `${key}: holds no snapshot field`).toBeGreaterThan(0)
    expect(FILL[key], `${key}: no way to fill it in test/support/world-parts.ts`).toBeDefined()
  })

  it('no two parts hold the same snapshot field', () => {
    const fields = WORLD_PARTS.flatMap((p) => p.fields)
    expect(fields.length).toBe(new Set(fields).size)
  })
})

/** Every part filled in an app's default world, through its front door in-process. */
async function fillInProcess(app: SandboxApp): Promise<void> {
  const fetch = (path: string, init: RequestInit = {}) =>
    app.fetch(new Request(`http://sandbox.test${path}`, init), { via: 'msw', clientAddress: '127.0.0.1' })
  await fillEveryPart(
    async (call, token) => {
      const res = await fetch(call.path, {
        method: call.method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
      })
      return { status: res.status, text: await res.text() }
    },
    async () =>
      (
        await fetch('/api/session-auth/sign-in/email', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@fleet.test', password: 'sandbox' }),
        })
      ).headers.get('set-auth-token')!,
  )
}

/**
 * Save, then resume in a new process's app (the persistence port, src/core/persist): as the
 * `--state` file keeps a world (every record, then the file's snapshot format), and as IndexedDB
 * and a Durable Object's storage keep one (the seed and what changed since). The runtimes' own
 * stores are taken through the same with every part filled: test/worker/restart.test.ts
 * (workerd), test/cli/state-parts.test.ts (--state), test/browser/sandbox.test.ts (IndexedDB).
 */
describe.each([
  ['a whole store (--state)', true],
  ['a store of changes (IndexedDB, Durable Objects)', false],
] as const)('every part saved in %s, then resumed', (_, whole) => {
  it('every part the same', async () => {
    const options = { seed: 1, now: NOW, size: 'small' as const }
    const app = createServedApp(options)
    const backend = new MemoryBackend()
    const persisted = await PersistedSandbox.open(await app.ready(), backend, { whole })
    // As GET /__sandbox/snapshot answers it: a copy (a snapshot holds the live parts).
    const copy = async (a: SandboxApp) => JSON.parse(JSON.stringify((await a.ready()).snapshot()))
    const fresh = await copy(app)
    await fillInProcess(app)
    await persisted.flush()
    const filled = await copy(app)
    expectFilled(filled, fresh)
    persisted.close()
    const again = createServedApp(options)
    const resumed = await PersistedSandbox.open(await again.ready(), backend, { whole })
    expectSameParts(
      await copy(again),
      filled,
      `a save and a resume in ${whole ? 'a whole store' : 'a store of changes'}`,
    )
    // The journal's changes came back with it: the resumed world rewinds to before the fill.
    const first = filled.journal.find((e: { id: number }) => e.id > (fresh.journal.at(-1)?.id ?? 0)).id
    await rewind(await again.ready(), { before: first })
    expectSameParts(
      await copy(again),
      fresh,
      'a rewind to before the fill after a resume',
      WORLD_PARTS.filter((p) => 'undo' in p.rewind && p.key !== 'clock'),
    )
    resumed.close()
    if (whole) {
      // The file's format is the snapshot's: restored into another world, every part the same.
      const file = JSON.parse(JSON.stringify(snapshotOf(backend.values)))
      const other = await createServedApp(options).ready()
      await other.restore(file)
      expectSameParts(
        JSON.parse(JSON.stringify(other.snapshot())),
        filled,
        'the --state file restored into another world',
      )
    }
  })
})

describe('the digest sees every part it compares: a world that lost one differs in it', () => {
  it.each(WORLD_PARTS.filter((p) => typeof p.digest === 'function').map((p) => [p.key, p] as const))(
    '%s',
    async (key, part) => {
      const app = createServedApp({ seed: 1, now: NOW, size: 'small' })
      const sandbox = await app.ready()
      await fillInProcess(app)
      const whole = await worldParts(sandbox)
      // The part lost, as a replay that forgot it would leave it: as in a new world (of another seed, so the seed and records differ too).
      const kept = readParts(sandbox, [part])
      const other = await createServedApp({ seed: 2, now: NOW, size: 'small' }).ready()
      await part.write(sandbox, await part.check(readParts(other, [part]), sandbox, true))
      const lost = await worldParts(sandbox)
      const differ = Object.keys(whole).filter((name) => whole[name] !== lost[name])
      expect(differ.length, `${key}: a world without it has the same digest`).toBeGreaterThan(0)
      expect(
        differ.every((name) => part.fields.includes(name) || name === key),
        `${key}: losing it changed the digest of ${differ.join(', ')}`,
      ).toBe(true)
      await part.write(sandbox, await part.check(kept, sandbox, true))
      expect(await worldParts(sandbox)).toEqual(whole)
    },
  )
})

describe.each(runtimes)('every part of a world through $name', (runtime) => {
  const rt = useSandbox(runtime)

  /** A new world with every part filled, its snapshot, and a fresh world's beside it. */
  async function everyPart(): Promise<{ c: Client; filled: Record<string, any>; fresh: Record<string, any> }> {
    const c = await rt.isolated()
    const fresh = (await c.control.get('/snapshot')).body
    await fillEveryPart(
      async (call, token) => {
        const res = await c.as(token ?? null).send(call.method, call.path, call.body)
        return { status: res.status, text: await res.text() }
      },
      () => c.signIn(),
    )
    const filled = (await c.control.get('/snapshot')).body
    expectFilled(filled, fresh)
    return { c, filled, fresh }
  }

  it('snapshot, then restore into another world: every part the same', async () => {
    const { filled } = await everyPart()
    const other = rt.fresh('restored')
    expect((await other.control.put('/snapshot', filled)).status).toBe(200)
    expectSameParts((await other.control.get('/snapshot')).body, filled, 'a snapshot restored into another world')
  })

  it('repro bundle, then replay into another world: every part a bundle carries the same; from a base too', async () => {
    const { c, filled } = await everyPart()
    const carried = WORLD_PARTS.filter((p) => typeof p.bundle === 'string')
    for (const [label, prepare] of [
      ['from its seed', async () => undefined],
      [
        'from a base (after a restore)',
        async () => expect((await c.control.put('/snapshot', filled)).status).toBe(200),
      ],
    ] as const) {
      await prepare()
      const bundle = await c.control.get('/repro')
      expect(bundle.status, await bundle.text()).toBe(200)
      expect(Boolean(bundle.body.base), label).toBe(label !== 'from its seed')
      const other = rt.fresh('replayed')
      const replayed = await other.control.post('/repro', bundle.body)
      expect(replayed.status, `${label}: ${await replayed.text()}`).toBe(200)
      expectSameParts(
        (await other.control.get('/snapshot')).body,
        (await c.control.get('/snapshot')).body,
        `a bundle ${label} replayed into another world`,
        carried.filter((p) => p.key !== 'records'),
      )
      // Records: credentials aside (parts.ts CONCEALED), every collection the same.
      const [mine, theirs] = [(await c.control.get('/snapshot')).body, (await other.control.get('/snapshot')).body]
      for (const name of WORLD_PARTS.find((p) => p.key === 'records')!.fields) {
        const plain = (rows: Record<string, unknown>[]) =>
          rows.map((r) => ({ ...r, password: undefined, ...(name === 'apiTokens' ? { token: undefined } : {}) }))
        expect(comparable(plain(theirs[name])), `records (${name}) after a bundle ${label} was replayed`).toEqual(
          comparable(plain(mine[name])),
        )
      }
    }
  })

  it('rewind before the fill and after it: every rewound part back, every kept part kept', async () => {
    const { c, filled, fresh } = await everyPart()
    const entries = (await c.control.get('/requests')).body.requests
    // The fill's requests: those after the fresh world's snapshot (the harness signed in before it).
    const fill = entries.filter((e: { id: number }) => e.id > (fresh.journal.at(-1)?.id ?? 0))
    const [first, last] = [fill[0].id, fill.at(-1).id]
    // A write after the fill, undone by a rewind to just after it.
    const token = await c.signIn()
    const more = await c.as(token).post('/api/v1/billing/invoices/inv_acme_0015/publish')
    expect(more.status).toBe(200)
    const rewound = WORLD_PARTS.filter((p) => 'undo' in p.rewind && p.key !== 'clock')
    const kept = WORLD_PARTS.filter((p) => 'kept' in p.rewind && p.key !== 'journal')
    expect((await c.control.post('/rewind', { after: last })).status).toBe(200)
    const after = (await c.control.get('/snapshot')).body
    expectSameParts(
      after,
      filled,
      `a rewind to just after the fill (${last})`,
      rewound.filter((p) => p.key !== 'sessions'),
    )
    expect((await c.control.post('/rewind', { before: first })).status).toBe(200)
    const before = (await c.control.get('/snapshot')).body
    expectSameParts(before, fresh, `a rewind to just before the fill (${first})`, rewound)
    expectSameParts(before, filled, `a rewind to just before the fill (${first}), kept`, kept)
    // The journal keeps every request, the rewinds among them.
    expect(before.journal.slice(0, filled.journal.length)).toEqual(filled.journal)
    expect(before.clock).toEqual({ now: fill[0].at, frozen: true })
  })

  it('reset: every part as in a new world (a new signing key, the clock from its start)', async () => {
    const { c, filled } = await everyPart()
    expect((await c.control.post('/reset')).status).toBe(200)
    const reset = (await c.control.get('/snapshot')).body
    const fresh = (await rt.fresh('new-world').control.get('/snapshot')).body
    // Made at the instant of the reset: a new key, the clock from its start, sessions opened then (on a running clock, a millisecond apart).
    const random = new Set(['signingKey', 'clock', 'sessions'])
    expectSameParts(
      reset,
      fresh,
      'a reset',
      WORLD_PARTS.filter((p) => !random.has(p.key)),
    )
    const opened = (snapshot: Record<string, any>) =>
      snapshot.sessions.map(({ token, userId, kind }: Record<string, unknown>) => ({ token, userId, kind }))
    expect(opened(reset), 'sessions after a reset').toEqual(opened(fresh))
    expect(reset.signingKey).not.toBe(filled.signingKey)
    expect(reset.clock.frozen).toBe(false)
    expect(Math.abs(Date.parse(reset.clock.now) - Date.parse(NOW))).toBeLessThan(10 * 60_000)
    expect(
      fieldsOf(
        WORLD_PARTS.find((p) => p.key === 'journal')!,
        reset,
      ).journal,
    ).toEqual([])
  })
})
