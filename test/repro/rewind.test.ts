import { describe, expect, it } from 'vitest'
import jsonpatch from 'fast-json-patch'
import { createSandboxApp } from '../../src/apps/page-app.js'
import type { TableName } from '../../src/core/store/collections.js'
import { generator, type Random } from '../support/generator.js'
import { keyed } from '../support/keyed.js'
import { ChangeRecorder } from '../../src/core/store/changes.js'
import type { JournalEntry } from '../../src/core/sandbox/journal.js'
import { rewind, snapshotAt, undoAll } from '../../src/core/time-travel/rewind.js'
import type { Sandbox } from '../../src/core/sandbox/sandbox.js'

const NOW = '2026-11-22T12:00:00.000Z'
const fresh = async () => await createSandboxApp({ seed: 5, now: NOW, size: 'small', frozenClock: true }).ready()
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v))

/** The keyed snapshot with every password as a change shows it (never kept: changes.ts SECRET_FIELDS). */
function world(snapshot: object): Record<string, unknown> {
  const out = keyed(copy(snapshot))
  for (const records of Object.values(out)) {
    if (records === null || typeof records !== 'object' || Array.isArray(records)) continue
    for (const r of Object.values(records))
      if (r && typeof r === 'object' && 'password' in r) (r as Record<string, unknown>).password = '[not kept]'
  }
  return out
}

describe('ChangeRecorder', () => {
  it('records a row added, removed and changed field by field, with old values; ids and fields escaped as JSON Pointer', () => {
    const r = new ChangeRecorder()
    r.row('invoices', 'a/b~c', undefined, { id: 'a/b~c', status: 'draft' })
    r.row(
      'invoices',
      'x',
      { id: 'x', status: 'draft', lines: [1], gone: true },
      { id: 'x', status: 'published', lines: [1], 'new/field': 2 },
    )
    r.row('layers', 'y', { id: 'y' }, undefined)
    expect(r.take()!.patch).toEqual([
      { op: 'add', path: '/invoices/a~1b~0c', value: { id: 'a/b~c', status: 'draft' } },
      { op: 'replace', path: '/invoices/x/status', value: 'published', from: 'draft' },
      { op: 'add', path: '/invoices/x/new~1field', value: 2 },
      { op: 'remove', path: '/invoices/x/gone', from: true },
      { op: 'remove', path: '/layers/y', from: { id: 'y' } },
    ])
    expect(r.take()).toBeUndefined()
  })

  it('never keeps a password: a change shows it as [not kept], in a field or a whole record', () => {
    const r = new ChangeRecorder()
    r.row('users', 'u', { id: 'u', password: 'old-secret' }, { id: 'u', password: 'new-secret' })
    r.row('users', 'v', undefined, { id: 'v', password: 'secret' })
    expect(JSON.stringify(r.take())).not.toContain('secret')
  })

  it('keeps copies: a value changed after the write does not change the record of it', () => {
    const r = new ChangeRecorder()
    const after = { id: 'x', lines: [1, 2] }
    r.row('invoices', 'x', { id: 'x', lines: [1] }, after)
    after.lines.push(3)
    expect(r.take()!.patch[0].value).toEqual([1, 2])
  })
})

/** One generated write of any kind the stores take, as routes make them. */
async function write(s: Sandbox, r: Random, n: number): Promise<void> {
  const t = s.world.tables as unknown as Record<
    TableName,
    {
      all(): { id: string }[]
      insert(v: unknown): Promise<unknown>
      update(id: string, f: (d: Record<string, unknown>) => void): Promise<unknown>
      remove(id: string): Promise<unknown>
    }
  >
  const names = (Object.keys(t) as TableName[]).filter((name) => t[name].all().length > 1)
  const table = t[r.pick(names)]
  const rows = table.all()
  switch (r.int(7)) {
    case 0: {
      // A field takes the value another record of its collection has: always valid.
      const row = r.pick(rows) as Record<string, unknown>
      const other = r.pick(rows) as Record<string, unknown>
      // A password is never kept in a change (changes.ts SECRET_FIELDS): the forward check would not hold for it.
      const field = r.pick(Object.keys(row).filter((f) => f !== 'id' && f !== 'password'))
      if (field) await table.update(row.id as string, (d) => void (d[field] = structuredClone(other[field])))
      return
    }
    case 1: {
      // A copy of a record under a new id; one whose id has a pattern of its own is refused (before anything is kept).
      const row = copy(r.pick(rows))
      return void (await table.insert({ ...row, id: `${row.id}${n}` }).catch(() => undefined))
    }
    case 2:
      return void (await table.remove(r.pick(rows).id))
    case 3: {
      const e = r.pick(s.world.notifications.entries().slice(0, 50))
      return s.world.notifications.replace({
        ...e,
        n: { ...e.n, status: r.pick(['reviewed', 'unreviewed', 'false_positive'] as never[]), updatedAt: s.iso() },
      })
    }
    case 4:
      return void s.sessions.open('usr_admin', 'cli_acme', s.clock.now())
    case 5: {
      const all = s.sessions.all()
      if (r.next() < 0.2) return s.sessions.expireAll(s.clock.now())
      if (all.length) s.sessions.close(r.pick(all).token)
      return
    }
    default:
      return void s.outbox.add('email', s.iso(), { to: `a${n}@b.test`, subject: 'hello' })
  }
}

/** Runs `steps` generated requests of 1 to 3 writes each, journaled as the pipeline does; the keyed snapshot after each. */
async function generated(s: Sandbox, r: Random, steps: number) {
  const snapshots = [world(s.snapshot())]
  const entries: JournalEntry[] = []
  for (let step = 0; step < steps; step++) {
    for (let i = 1 + r.int(3); i > 0; i--) await write(s, r, step * 10 + i)
    s.clock.advance(1000)
    entries.push(
      s.journal.add({
        method: 'POST',
        path: `/step/${step}`,
        query: '',
        status: 200,
        faults: [],
        durationMs: 0,
        at: s.iso(),
        changes: s.changes.take(),
      }),
    )
    snapshots.push(world(s.snapshot()))
  }
  return { snapshots, entries }
}

describe('a generated sequence of writes', () => {
  it.each([1, 2, 3])(
    'each patch applies forward with fast-json-patch, and undone newest first gives every earlier snapshot, seed %i',
    async (seed) => {
      const s = await fresh()
      const r = generator(seed)
      const { snapshots, entries } = await generated(s, r, 60)
      for (const [i, entry] of entries.entries()) {
        if (!entry.changes) continue
        const patch = copy(entry.changes.patch) as jsonpatch.Operation[]
        expect(jsonpatch.validate(patch), `step ${i}`).toBeUndefined()
        expect(jsonpatch.applyPatch(copy(snapshots[i]), patch, true, false).newDocument, `step ${i} forward`).toEqual(
          snapshots[i + 1],
        )
      }
      const back = copy(s.snapshot()) as unknown as Record<string, unknown>
      for (let i = entries.length - 1; i >= 0; i--) {
        undoAll(back, [entries[i]])
        expect(world(back), `undone to before step ${i}`).toEqual(snapshots[i])
      }
    },
  )

  it('rewinds the live stores to any earlier moment and back again', async () => {
    const s = await fresh()
    const r = generator(7)
    const { snapshots, entries } = await generated(s, r, 40)
    const last = snapshots.at(-1)
    for (const k of [25, 3, 39]) {
      const view = world(snapshotAt(s, { before: entries[k].id }))
      await rewind(s, { before: entries[k].id })
      expect(world(s.snapshot()), `before step ${k}`).toEqual(snapshots[k])
      expect(view).toEqual(snapshots[k])
      // The rewind journaled, then undone: the world as it left it.
      const own = s.journal.add({
        method: 'POST',
        path: '/__sandbox/rewind',
        query: '',
        status: 200,
        faults: [],
        durationMs: 0,
        at: s.iso(),
        changes: s.changes.take(),
      })
      await rewind(s, { before: own.id })
      s.journal.add({
        method: 'POST',
        path: '/__sandbox/rewind',
        query: '',
        status: 200,
        faults: [],
        durationMs: 0,
        at: s.iso(),
        changes: s.changes.take(),
      })
      expect(world(s.snapshot()), `back from before step ${k}`).toEqual(last)
    }
    await rewind(s, { after: entries[10].id })
    expect(world(s.snapshot())).toEqual(snapshots[11])
    expect(s.clock.iso()).toBe(entries[10].at)
  })

  it('changes nothing when a patch no longer matches the records (a write no journal entry holds)', async () => {
    const s = await fresh()
    const { entries } = await generated(s, generator(11), 20)
    const added = entries
      .flatMap((e) => e.changes?.patch ?? [])
      .filter(
        (op) =>
          op.op === 'add' &&
          op.path.split('/').length === 3 &&
          !op.path.startsWith('/notifications') &&
          !op.path.startsWith('/outbox') &&
          !op.path.startsWith('/sessions'),
      )
    expect(added.length).toBeGreaterThan(0)
    // The newest record a step added, removed behind the journal's back.
    const [, name, id] = added.at(-1)!.path.split('/')
    const table = s.world.tables[name as TableName] as unknown as {
      remove(id: string): Promise<unknown>
      recorder?: unknown
    }
    table.recorder = undefined
    await table.remove(id)
    // Told of writes again from here, as a sandbox's tables always are.
    s.world = s.world
    const was = copy(s.snapshot())
    await expect(rewind(s, { before: entries[0].id })).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('nothing was rewound'),
    })
    expect(copy(s.snapshot())).toEqual(was)
    expect(s.changes.take()).toBeUndefined()
  })
})
