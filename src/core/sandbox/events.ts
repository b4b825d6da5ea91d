import type { JournalEntry } from './journal.js'
import type { OutboxEntry } from './outbox.js'
import type { Finding } from '../bridge/types.js'

/** What changed in a sandbox besides requests and the outbox (docs/contract.md `event: state`). */
export type StateChange =
  | 'scenarios'
  | 'clock'
  | 'reset'
  | 'restore'
  | 'requests-cleared'
  | 'outbox-cleared'
  | 'overrides'
  | 'fixtures'
  | 'rewind'
  | 'replay'

/**
 * The part of the world (parts.ts, by key) a change made outside a request changed: the repro
 * log carries its new value as a `part` step, and a replay puts it back the one way it puts any
 * part (time-travel/replay.ts `loadPart`). A part the control API changes is named here, nothing
 * more. The other changes begin the log again (restore, fixtures, rewind) or leave the world.
 */
export const CHANGED_PART: Partial<Record<StateChange, string>> = {
  clock: 'clock',
  scenarios: 'scenarios',
  overrides: 'overrides',
  'outbox-cleared': 'outbox',
}

export interface StateEvent {
  change: StateChange
  seed: number
  now: string
  scenarios: string[]
}

export type SandboxEvent =
  | { type: 'request'; data: JournalEntry }
  | { type: 'outbox'; data: OutboxEntry }
  | { type: 'state'; data: StateEvent }
  /** A passthrough answer was checked (the bridge): its journal entry's id and what differs. */
  | { type: 'drift'; data: { id: number; operation: string; path: string; httpStatus: number; findings: Finding[] } }

export interface Listener {
  send(event: SandboxEvent): void
  /** The sandbox is gone (dropped, evicted): the listener ends its stream. */
  end(): void
}

/** A sandbox's listeners: the event streams open on it. Each one removes itself when its client leaves. */
export class SandboxEvents {
  #listeners = new Set<Listener>()

  get size(): number {
    return this.#listeners.size
  }

  on(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => void this.#listeners.delete(listener)
  }

  emit(event: SandboxEvent): void {
    if (this.#listeners.size === 0) return
    for (const l of [...this.#listeners]) {
      try {
        l.send(event)
      } catch {
        // A listener that cannot take an event (its stream is gone) must not fail the request.
        this.#listeners.delete(l)
      }
    }
  }

  end(): void {
    const all = [...this.#listeners]
    this.#listeners.clear()
    for (const l of all) l.end()
  }
}
