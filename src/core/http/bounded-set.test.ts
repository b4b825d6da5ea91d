import { describe, expect, it } from 'vitest'
import { BoundedSet } from './bounded-set.js'

describe('BoundedSet', () => {
  it('keeps at most its bound, letting the oldest go first', () => {
    const set = new BoundedSet<number>(3)
    for (let i = 1; i <= 5; i++) set.add(i)
    expect([...set]).toEqual([3, 4, 5])
    set.delete(4)
    set.add(6)
    expect([...set]).toEqual([3, 5, 6])
    set.add(5)
    expect([...set]).toEqual([3, 5, 6])
  })
})
