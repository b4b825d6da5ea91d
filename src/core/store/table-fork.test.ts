import * as z from 'zod'
import { describe, expect, it } from 'vitest'
import { Table } from './table.js'

const schema = z.object({ id: z.string(), threadId: z.string(), text: z.string() })
type Message = z.infer<typeof schema>

async function seeded(): Promise<Table<typeof schema>> {
  const t = new Table('messages', schema)
  await t.load(
    Array.from({ length: 12 }, (_, i) => ({ id: `m${i}`, threadId: `t${i % 3}`, text: `${i}` })),
    true,
  )
  return t
}

/** What a reader can observe of a table: rows in order, by id, and through the index. */
const observe = (t: Table<typeof schema>) => ({
  rows: t.all().map((m) => ({ ...m })),
  size: t.size,
  m4: t.get('m4') && { ...t.get('m4')! },
  t1: t.by('threadId', 't1').map((m) => m.id),
  t2: t.by('threadId', 't2').map((m) => m.id),
})

describe('Table forks (copy on first write)', () => {
  it('a fork holds no copy: the same rows, the same index, the same collection, until written', async () => {
    const base = await seeded()
    base.by('threadId', 't1')
    const a = base.fork()
    const b = base.fork()
    expect(a.collection).toBe(base.collection)
    expect(b.collection).toBe(a.collection)
    expect(a.get('m4')).toBe(base.get('m4'))
    expect(a.all()).toBe(base.all())
    expect(a.by('threadId', 't1')).toEqual(base.by('threadId', 't1'))
    // Reads never copy.
    a.where((m) => m.text === '4')
    expect(a.collection).toBe(base.collection)
  })

  it('a write on either side of a fork is seen by that side only, and copies only that table', async () => {
    const base = await seeded()
    const pristine = observe(base)
    const a = base.fork()
    const b = base.fork()
    await a.update('m4', (m) => void (m.threadId = 't2'))
    await a.insert({ id: 'm12', threadId: 't1', text: 'new' })
    await a.remove('m7')
    expect(a.collection).not.toBe(base.collection)
    expect(b.collection).toBe(base.collection)
    expect(observe(base)).toEqual(pristine)
    expect(observe(b)).toEqual(pristine)
    const seen = observe(a)
    expect(seen.m4?.threadId).toBe('t2')
    expect(seen.t1).toEqual(['m1', 'm10', 'm12'])
    expect(seen.t2).toEqual(['m2', 'm4', 'm5', 'm8', 'm11'])
    expect(seen.rows.map((m: Message) => m.id)).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
      'm6',
      'm8',
      'm9',
      'm10',
      'm11',
      'm12',
    ])
    // The other side writes too: still apart.
    await b.update('m4', (m) => void (m.text = 'b'))
    expect(observe(a)).toEqual(seen)
    expect(observe(base)).toEqual(pristine)
    expect(b.get('m4')?.text).toBe('b')
    // The parent writing after a fork leaves the forks as they were.
    await base.remove('m0')
    expect(observe(a)).toEqual(seen)
    expect(b.get('m0')).toBeDefined()
  })

  it('a fork of a fork shares with both until one writes; racing first writes copy once', async () => {
    const base = await seeded()
    const a = base.fork()
    const aa = a.fork()
    expect(aa.collection).toBe(base.collection)
    await Promise.all([
      aa.insert({ id: 'x', threadId: 't0', text: '' }),
      aa.insert({ id: 'y', threadId: 't0', text: '' }),
      aa.update('m3', (m) => void (m.text = 'z')),
    ])
    expect(aa.size).toBe(14)
    expect(aa.get('m3')?.text).toBe('z')
    expect(a.size).toBe(12)
    expect(a.collection).toBe(base.collection)
  })

  it('a fork checks what it is given: trust is for the rows it copies, not for writes', async () => {
    const a = (await seeded()).fork()
    await expect(a.insert({ id: 'bad', threadId: 5 } as never)).rejects.toThrow()
    expect(a.get('bad')).toBeUndefined()
  })
})
