import { expect } from 'vitest'

/**
 * Every item of a list passes `check`, and the list has items: `expect(list.every(check)).toBe(true)`
 * passes on an empty list, so a filter that matched nothing would pass unseen. A failure names
 * the items that did not pass.
 */
export function expectEach<T>(list: readonly T[], check: (item: T) => unknown): void {
  expect(list.length, 'the list is empty, so nothing was checked').toBeGreaterThan(0)
  expect(list.filter((item) => !check(item))).toEqual([])
}
