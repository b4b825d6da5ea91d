import { describe, expect, it, vi } from 'vitest'
import { createSandboxApp } from '../../src/apps/page-app.js'
import type { Sandbox } from '../../src/core/sandbox/sandbox.js'
import { MemoryBackend } from '../../src/core/persist/backend.js'
import { PersistedSandbox } from '../../src/core/persist/persisted.js'
import { snapshotOf, snapshotText } from '../../src/core/persist/snapshot-codec.js'
import { keyed } from '../support/keyed.js'

const NOW = '2026-11-22T12:00:00.000Z'
const options = { seed: 3, now: NOW, size: 'small' as const, frozenClock: true, control: {} }

/** A memory backend that counts the keys each call writes. */
class CountingBackend extends MemoryBackend {
  puts: string[][] = []
  deletes: string[][] = []
  override async put(entries: Map<string, unknown>) {
    this.puts.push([...entries.keys()])
    return super.put(entries)
  }
  override async delete(keys: string[]) {
    this.deletes.push(keys)
    return super.delete(keys)
  }
}

const fresh = async (seededAt?: number) => await createSandboxApp({ ...options, seededAt }).ready()
const state = (s: Sandbox) => JSON.parse(JSON.stringify(s.snapshot()))

/** Changes of every kind the port stores, made as routes make them. */
async function live(sandbox: Sandbox) {
  const t = sandbox.world.tables
  const layer = t.layers.all()[0]
  await t.layers.remove(layer.id)
  await t.layers.insert({ ...t.layers.all()[0], id: 'lay_new', name: 'A new layer' })
  await t.invoices.update(t.invoices.all()[0].id, (d) => void (d.status = 'published'))
  const e = sandbox.world.notifications.entries()[0]
  sandbox.world.notifications.replace({ ...e, n: { ...e.n, status: 'reviewed' } })
  sandbox.sessions.open('usr_admin', 'cli_acme', sandbox.clock.now())
  sandbox.outbox.add('email', sandbox.iso(), { to: 'a@b.test', subject: 'hello' })
  sandbox.journal.add({
    method: 'GET',
    path: '/api/layers',
    query: '',
    status: 200,
    faults: [],
    durationMs: 1,
    at: sandbox.iso(),
  })
  sandbox.setScenarios(sandbox.shared.scenarios.parseList('empty', 'scenario'))
  sandbox.scenarioState.set('rate-limited', new Map([['GET /x page', 2]]))
  sandbox.clock.advance(60_000)
  sandbox.random()
  sandbox.random()
  sandbox.ids.take('pay_')
}

/** A fresh sandbox kept in a memory backend, with changes of every kind stored. */
async function stored() {
  const backend = new MemoryBackend()
  const sandbox = await fresh()
  const kept = await PersistedSandbox.open(sandbox, backend)
  await live(sandbox)
  await kept.flush()
  return { backend, sandbox, kept }
}

describe('the persistence port', () => {
  it('puts back every part: records, sessions, journal, outbox, scenarios, counters, clock, key, draws', async () => {
    const { backend, sandbox: first } = await stored()

    const again = await fresh(first.seededAt)
    await PersistedSandbox.open(again, backend)
    expect(state(again)).toEqual(state(first))
    expect(again.scenarioState).toEqual(first.scenarioState)
    expect(again.draws).toBe(2)
    expect(again.random()).toBe(first.random())
    expect(again.signingKeyHex).toBe(first.signingKeyHex)
  })

  it('stores a rewound world: records, sessions, outbox and clock as the rewind left them, and the changes to rewind it again', async () => {
    const backend = new MemoryBackend()
    const sandbox = await fresh()
    const kept = await PersistedSandbox.open(sandbox, backend)
    const journaled = (path: string) =>
      sandbox.journal.add({
        method: 'POST',
        path,
        query: '',
        status: 200,
        faults: [],
        durationMs: 0,
        at: sandbox.iso(),
        changes: sandbox.changes.take(),
      })
    const t = sandbox.world.tables
    await t.invoices.update(t.invoices.all()[0].id, (d) => void (d.status = 'published'))
    sandbox.outbox.add('email', sandbox.iso(), { to: 'first@b.test', subject: 'kept' })
    const first = journaled('/one')
    await kept.flush()
    const before = state(sandbox)
    sandbox.clock.advance(60_000)
    await t.layers.remove(t.layers.all()[0].id)
    sandbox.sessions.open('usr_admin', 'cli_acme', sandbox.clock.now())
    sandbox.outbox.add('email', sandbox.iso(), { to: 'a@b.test', subject: 'hello' })
    const second = journaled('/two')
    await kept.flush()
    const { rewind } = await import('../../src/core/time-travel/rewind.js')
    await rewind(sandbox, { after: first.id })
    const own = journaled('/__sandbox/rewind')
    await kept.flush()
    const world = (s: Sandbox) => ({ ...state(s), journal: undefined })
    // The layer put back comes last in its collection: compared keyed by id.
    expect(keyed(state(sandbox))).toEqual(keyed(before))
    expect(state(sandbox).clock).toEqual(before.clock)

    const again = await fresh(sandbox.seededAt)
    await PersistedSandbox.open(again, backend)
    expect(world(again)).toEqual(world(sandbox))
    expect(again.journal.list().map((e) => e.id)).toEqual([first.id, second.id, own.id])
    expect(again.journal.get(own.id)!.changes).toEqual(JSON.parse(JSON.stringify(own.changes)))
    kept.close()
  })

  it('stores what a write changed, not the world; a read waits for the next batch', async () => {
    const backend = new CountingBackend()
    const sandbox = await fresh()
    const kept = await PersistedSandbox.open(sandbox, backend)
    // A fresh world is its seed: no record is stored.
    expect([...backend.values.keys()].filter((k) => k.startsWith('r:') || k.startsWith('n:'))).toEqual([])
    backend.puts = []
    const e = sandbox.world.notifications.entries()[0]
    sandbox.world.notifications.replace({ ...e, n: { ...e.n, status: 'reviewed' } })
    await kept.flush()
    expect(backend.puts.flat().filter((k) => k !== 'meta' && k !== 'k:used')).toEqual([`n:${e.n.id}`])

    backend.puts = []
    sandbox.journal.add({
      method: 'GET',
      path: '/api/layers',
      query: '',
      status: 200,
      faults: [],
      durationMs: 1,
      at: sandbox.iso(),
    })
    kept.later()
    expect(backend.puts).toEqual([])
    await kept.flush()
    expect(backend.puts.flat()).toContain('j:000000000001')
    kept.close()
  })

  it('keeps the journal in the slots of its ring: a new entry replaces one gone, nothing is deleted', async () => {
    const backend = new CountingBackend()
    const sandbox = await fresh()
    const kept = await PersistedSandbox.open(sandbox, backend)
    const add = (n: number) => {
      for (let i = 0; i < n; i++)
        sandbox.journal.add({
          method: 'GET',
          path: `/api/layers/${i}`,
          query: '',
          status: 200,
          faults: [],
          durationMs: 1,
          at: sandbox.iso(),
        })
    }
    const capacity = sandbox.journal.capacity
    add(capacity + 50)
    await kept.flush()
    const journalKeys = () => [...backend.values.keys()].filter((k) => k.startsWith('j:'))
    expect(journalKeys()).toHaveLength(capacity)
    backend.puts = []
    backend.deletes = []
    add(10)
    await kept.flush()
    expect(backend.puts.flat().filter((k) => k.startsWith('j:'))).toHaveLength(10)
    expect(backend.puts.flat()).toContain('k:jfirst')
    expect(backend.deletes.flat()).toEqual([])
    expect(journalKeys()).toHaveLength(capacity)

    const again = await fresh(sandbox.seededAt)
    await PersistedSandbox.open(again, backend)
    expect(again.journal.list()).toEqual(sandbox.journal.list())
    expect(again.journal.firstId).toBe(61)
    // A cleared journal stays cleared after a reload, though its entries' values remain in their slots.
    sandbox.journal.clear()
    await kept.flush()
    const cleared = await fresh(sandbox.seededAt)
    await PersistedSandbox.open(cleared, backend)
    expect(cleared.journal.list()).toEqual([])
    kept.close()
  })

  it('reads a journal stored one key per id (before slots) and moves it into its slots', async () => {
    const { backend, sandbox, kept } = await stored()
    kept.close()
    const entry = sandbox.journal.list()[0]
    // As an older store kept it: key by id, past the ring's size, and no `k:jfirst`.
    backend.values.delete('k:jfirst')
    for (const key of [...backend.values.keys()]) if (key.startsWith('j:')) backend.values.delete(key)
    backend.values.set('j:000000001500', { ...entry, id: 1500 })
    backend.values.set('j:000000001501', { ...entry, id: 1501, path: '/api/later' })
    const again = await fresh(sandbox.seededAt)
    const reopened = await PersistedSandbox.open(again, backend)
    expect(again.journal.list().map((e) => [e.id, e.path])).toEqual([
      [1500, entry.path],
      [1501, '/api/later'],
    ])
    const keys = [...backend.values.keys()].filter((k) => k.startsWith('j:')).sort()
    expect(keys).toEqual(['j:000000000500', 'j:000000000501'])
    reopened.close()
  })

  it('with the journal in batches, a write stores its records now and the journal with the next batch', async () => {
    const backend = new CountingBackend()
    const sandbox = await fresh()
    const kept = await PersistedSandbox.open(sandbox, backend, { journalInBatches: true, readBatchMs: 20 })
    backend.puts = []
    sandbox.journal.add({
      method: 'PATCH',
      path: '/api/layers/x',
      query: '',
      status: 200,
      faults: [],
      durationMs: 1,
      at: sandbox.iso(),
    })
    await sandbox.world.tables.invoices.update(
      sandbox.world.tables.invoices.all()[0].id,
      (d) => void (d.status = 'published'),
    )
    await kept.answered('PATCH')
    expect(backend.puts.flat().some((k) => k.startsWith('r:invoices:'))).toBe(true)
    expect(backend.puts.flat().some((k) => k.startsWith('j:'))).toBe(false)
    await vi.waitFor(() => expect(backend.puts.flat()).toContain('j:000000000001'))
    kept.close()
  })

  it('a reset stores only the new seed: every stored record and log entry is deleted', async () => {
    const { backend, sandbox, kept } = await stored()
    await sandbox.reset(5)
    await sandbox.world.tables.layers.insert({ ...sandbox.world.tables.layers.all()[0], id: 'lay_after' })
    await kept.flush()
    const keys = [...backend.values.keys()]
    expect(keys.filter((k) => /^[rnjot]:/.test(k)).sort()).toEqual([
      'r:layers:lay_after',
      't:ses_impersonation_operator',
    ])
    const again = await fresh(sandbox.seededAt)
    await PersistedSandbox.open(again, backend)
    expect(state(again)).toEqual(state(sandbox))
  })

  it('after a snapshot restore, which no seed reproduces, stores every record', async () => {
    const backend = new MemoryBackend()
    const source = await fresh()
    await live(source)
    const sandbox = await fresh()
    const kept = await PersistedSandbox.open(sandbox, backend)
    await sandbox.restore({ ...state(source), seed: 9 })
    await kept.flush()
    expect((backend.values.get('meta') as { base: unknown }).base).toBeNull()
    const again = await fresh(sandbox.seededAt)
    await PersistedSandbox.open(again, backend)
    expect(state(again)).toEqual(state(sandbox))
    expect(again.seed).toBe(9)
  })

  it('a whole store reads as the snapshot of GET /__sandbox/snapshot (the --state file)', async () => {
    const backend = new MemoryBackend()
    const sandbox = await fresh()
    const kept = await PersistedSandbox.open(sandbox, backend, { whole: true })
    await live(sandbox)
    await kept.flush()
    expect(JSON.parse(JSON.stringify(snapshotOf(backend.values)))).toEqual(state(sandbox))
  })

  it('writes the same text with each record kept as text, and changed records written anew (--state saves as the world changes)', async () => {
    const backend = new MemoryBackend()
    const sandbox = await fresh()
    const kept = await PersistedSandbox.open(sandbox, backend, { whole: true })
    await kept.flush()
    const cache = new WeakMap<object, string>()
    expect(snapshotText(backend.values, cache)).toBe(JSON.stringify(snapshotOf(backend.values)))
    await live(sandbox)
    await kept.flush()
    expect(snapshotText(backend.values, cache)).toBe(JSON.stringify(snapshotOf(backend.values)))
    expect(JSON.parse(snapshotText(backend.values, cache))).toEqual(state(sandbox))
  })

  it('refuses a stored state the runtime does not accept, and starts it over', async () => {
    const backend = new MemoryBackend()
    const first = await fresh()
    const kept = await PersistedSandbox.open(first, backend, { meta: { fingerprint: 'a' } })
    await live(first)
    await kept.flush()
    const other = await fresh()
    const before = state(other)
    await PersistedSandbox.open(other, backend, { meta: { fingerprint: 'b' }, accepts: (m) => m.fingerprint === 'b' })
    expect((backend.values.get('meta') as { fingerprint: string }).fingerprint).toBe('b')
    expect(state(other)).toEqual(before)
    expect([...backend.values.keys()].filter((k) => k.startsWith('r:') || k.startsWith('n:'))).toEqual([])
  })
})
