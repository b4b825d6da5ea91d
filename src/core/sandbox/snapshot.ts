import type { WorldRows } from '../store/world.js'
import { HttpError } from '../http/reply.js'
import { JOURNAL_MAX_BYTES } from './journal.js'
import { COLLECTION_LIMIT, type PartFields, partOf } from './parts.js'

/** A world as `GET /__sandbox/snapshot` answers it: every part's fields (derived from the parts list, parts.ts). */
export type Snapshot = { version: 1 } & PartFields
/** A snapshot's fields besides the records: the parts' that are not collections (optional ones: absent in older snapshots). */
export type SandboxState = Omit<PartFields, keyof WorldRows>

export { COLLECTION_LIMIT, SCENARIO_LIMIT } from './parts.js'
/** Characters per string in a snapshot: no JSON body the API accepts (1 MB) can make a longer one. */
export const STRING_LIMIT = 1_048_576

/**
 * A restore beyond a bound is refused before anything is checked or built (413 naming the
 * collection): the journal (entries and bytes), outbox and sessions as they are capped while a
 * sandbox runs, scenarios at `SCENARIO_LIMIT`, record collections at `COLLECTION_LIMIT`, every
 * string at `STRING_LIMIT`.
 */
export function checkBounds(snapshot: Record<string, unknown>, journalCapacity: number): void {
  for (const [name, value] of Object.entries(snapshot)) {
    const bound = partOf(name)?.bound
    const cap =
      name === 'journal'
        ? journalCapacity
        : bound && 'entries' in bound
          ? bound.entries
          : (bound?.perCollection ?? COLLECTION_LIMIT)
    if (Array.isArray(value) && value.length > cap)
      throw new HttpError(413, `${name}: must hold at most ${cap} entries; the snapshot has ${value.length}`)
    const long = longString(value)
    if (long !== undefined)
      throw new HttpError(413, `${name}: strings must be at most ${STRING_LIMIT} characters; one has ${long}`)
  }
  // Within its entry count a journal of long paths can still hold far more than 8 MB.
  if (Array.isArray(snapshot.journal)) {
    const bytes = new TextEncoder().encode(JSON.stringify(snapshot.journal)).byteLength
    if (bytes > JOURNAL_MAX_BYTES)
      throw new HttpError(
        413,
        `journal: must be at most ${JOURNAL_MAX_BYTES} bytes (8 MB) as JSON; the snapshot's is ${bytes}`,
      )
  }
}

/** The length of the first string (value or key) over the limit, walked without recursion (nesting can be deep). */
function longString(root: unknown): number | undefined {
  const stack = [root]
  while (stack.length) {
    const value = stack.pop()
    if (typeof value === 'string') {
      if (value.length > STRING_LIMIT) return value.length
    } else if (Array.isArray(value)) {
      for (const v of value) stack.push(v)
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k.length > STRING_LIMIT) return k.length
        stack.push(v)
      }
    }
  }
  return undefined
}
