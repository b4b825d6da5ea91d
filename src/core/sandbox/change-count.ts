import type { Sandbox } from './sandbox.js'

const counts = new WeakMap<Sandbox, { n: number; listening: boolean }>()
/** Tells one process's counts from another's: a restarted runtime's count starts over. */
const run = Math.random().toString(36).slice(2, 10)

/**
 * A mark that changes whenever the sandbox's state may have (a request journaled, an outbox
 * entry, a reset, a restore, scenarios, the clock): `--state` saves when it moved, and asks
 * nothing of an idle world. Counting starts at the first call.
 */
export function changeMark(sandbox: Sandbox): string {
  let count = counts.get(sandbox)
  if (!count) {
    count = { n: 0, listening: false }
    counts.set(sandbox, count)
    const c = count
    sandbox.watch(() => void c.n++)
  }
  if (!count.listening) {
    // The event streams' end drops every listener: counted again from here, as a change.
    const c = count
    c.listening = true
    c.n++
    sandbox.events.on({ send: () => void c.n++, end: () => void (c.listening = false) })
  }
  return `${run}:${count.n}`
}
