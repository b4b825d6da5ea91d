import * as z from 'zod'
import { describe, expect, it } from 'vitest'
import { Table } from './table.js'

const schema = z.object({ id: z.string(), threadId: z.string(), text: z.string() })

describe('Table.by (foreign-key index)', () => {
  it('answers what a scan answers, in insertion order, through inserts, key changes, removals and loads', async () => {
    const t = new Table('messages', schema)
    const scan = (threadId: string) => t.where((m) => m.threadId === threadId).map((m) => m.id)
    const by = (threadId: string) => t.by('threadId', threadId).map((m) => m.id)
    for (let i = 0; i < 30; i++) await t.insert({ id: `m${i}`, threadId: `t${i % 3}`, text: `${i}` })
    expect(by('t1')).toEqual(scan('t1'))
    expect(by('t1')).toHaveLength(10)
    // Indexed from now on: writes keep it.
    await t.insert({ id: 'm30', threadId: 't1', text: 'late' })
    await t.update('m4', (m) => void (m.threadId = 't2'))
    await t.update('m7', (m) => void (m.text = 'edited'))
    await t.remove('m10')
    for (const thread of ['t0', 't1', 't2', 'nobody']) expect(by(thread)).toEqual(scan(thread))
    expect(t.by('threadId', 't1').find((m) => m.id === 'm7')?.text).toBe('edited')
    // A caller sorting the answer does not reorder the index.
    t.by('threadId', 't2').reverse()
    expect(by('t2')).toEqual(scan('t2'))
    await t.load([{ id: 'x', threadId: 't9', text: '' }])
    expect(by('t1')).toEqual([])
    expect(by('t9')).toEqual(['x'])
  })
})
