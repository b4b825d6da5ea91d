import type { Pagination } from '../http/pagination.js'
import { type BodySource, RawJson } from '../http/reply.js'
import type { ListPages, NotificationEntry, RecordBlock } from './notification-store.js'

const utf8 = new TextEncoder()
const BLOCK = 256 * 1024
/** At most this much of records' bytes is held: the RSS target at 100k (`npm run bench -- --only varied,memory`). */
const KEPT = 16 * 1024 * 1024
const HEAD = utf8.encode('{"status":"success","data":{"notifications":[')
const COMMA = 44

/**
 * Records' UTF-8 JSON, written into large shared blocks: one view per record and no per-record
 * allocation. The bytes of a record depend on the record alone (entries are never edited in
 * place), so they are written once, on first use, whatever query asks for the record.
 *
 * At most `kept` bytes of blocks are held. The arena cannot tell a live record from a dead one
 * (a reviewed record's old entry, an evicted sandbox's writes), so it goes by use: once full,
 * and once a quarter of `kept` of records went through it since it last looked, it drops every
 * block no page read since then, which reclaims dead records' bytes. While every block is in use
 * (a load that asks for more records than fit), a record that does not fit is written for its
 * page alone, as it was before reclaiming: the blocks then stay as they are rather than each
 * record pushing out another. A dropped block lets go of its bytes, so entries that still name
 * it hold a small object, not the bytes; a record of a dropped block is written again when a
 * page holds it.
 */
export class Arena {
  /** The blocks held, the newest last. */
  #blocks: RecordBlock[] = []
  #at = 0
  /** Bytes of records written or spilled since the last sweep. */
  #passed = 0
  /** Bytes held in blocks now: less than `kept` plus one block. */
  held = 0

  constructor(readonly kept: number) {}

  /** Writes the text into the newest block and points the entry at it; false when there is no room. */
  keep(e: NotificationEntry, text: string): boolean {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = text.length * 3
    let block = this.#blocks[this.#blocks.length - 1]
    this.#passed += text.length
    if (!block || block.bytes!.length - this.#at < room) {
      if (this.held >= this.kept && this.#passed >= this.kept / 4) this.#sweep(block)
      if (this.held >= this.kept) return false
      this.#blocks.push((block = { bytes: new Uint8Array(Math.max(BLOCK, room)), read: false }))
      this.held += block.bytes!.length
      this.#at = 0
    }
    const { written } = utf8.encodeInto(text, block.bytes!.subarray(this.#at))
    e.block = block
    e.at = this.#at
    e.len = written
    this.#at += written
    return true
  }

  /** Drops the blocks (but the newest) no page read since the last sweep, and unmarks the others. */
  #sweep(newest: RecordBlock): void {
    this.#passed = 0
    this.#blocks = this.#blocks.filter((block) => {
      if (block.read || block === newest) return !(block.read = false)
      this.held -= block.bytes!.length
      block.bytes = undefined
      return false
    })
  }
}

/** The bytes holding the entry's record, marking its block read; undefined when not written yet or dropped since. */
function read(e: NotificationEntry): Uint8Array | undefined {
  const block = e.block
  if (block?.bytes) block.read = true
  return block?.bytes
}

/**
 * Writes list pages as UTF-8 bytes copied from the records' bytes: no JSON and no UTF-8
 * encoding per request beyond the pagination (`npm run bench -- --only varied`: a cache of
 * recent pages never held what a varied load asks). One per app, shared by its sandboxes
 * (their entries are shared forks). The plain version is `plainListPages` (plain-store.ts),
 * which test/notifications/store-reference.test.ts compares it with byte for byte.
 */
export class PageWriter implements ListPages {
  /** Where the records' bytes are kept (the tests read what it holds and dropped). */
  readonly arena: Arena

  constructor(kept = KEPT) {
    this.arena = new Arena(kept)
  }

  listPage(items: readonly NotificationEntry[], pagination: Pagination, unreviewedCount: number): RawJson {
    const tail = `],"pagination":{"page":${pagination.page},"limit":${pagination.limit},"total":${pagination.total},"totalPages":${pagination.totalPages}},"unreviewedCount":${unreviewedCount}}}`
    const out = this.write(items, tail)
    return new RawJson(out, new PageSource(this, items, tail, out.byteLength))
  }

  /** The page's bytes: the head, the records' bytes with commas, and the tail. */
  write(items: readonly NotificationEntry[], tail: string): Uint8Array {
    const arena = this.arena
    let size = HEAD.length + tail.length + Math.max(0, items.length - 1)
    // Records that found no room, written anew for this page only.
    let spill: Uint8Array[] | undefined
    for (let i = 0; i < items.length; i++) {
      const e = items[i]
      if (!read(e)) {
        const json = JSON.stringify(e.n)
        if (!arena.keep(e, json)) (spill ??= [])[i] = utf8.encode(json)
      }
      size += spill?.[i]?.length ?? e.len
    }
    const out = new Uint8Array(size)
    out.set(HEAD, 0)
    let at = HEAD.length
    for (let i = 0; i < items.length; i++) {
      if (i > 0) out[at++] = COMMA
      const e = items[i]
      // A record whose block a page larger than a quarter of the arena dropped is written anew.
      const bytes = spill?.[i] ?? read(e)?.subarray(e.at, e.at + e.len) ?? utf8.encode(JSON.stringify(e.n))
      out.set(bytes, at)
      at += bytes.length
    }
    // The tail is ASCII: one byte per character.
    utf8.encodeInto(tail, out.subarray(at))
    return out
  }
}

/** A page as the journal keeps it: its entries (immutable) and tail, written again when asked. */
class PageSource implements BodySource {
  constructor(
    private readonly writer: PageWriter,
    private readonly items: readonly NotificationEntry[],
    private readonly tail: string,
    readonly size: number,
  ) {}

  bytes(): Uint8Array {
    return this.writer.write(this.items, this.tail)
  }
}
