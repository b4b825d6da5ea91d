import type { Pagination } from '../http/pagination.js'
import { type BodySource, RawJson } from '../http/reply.js'
import type { ListPages, NotificationEntry } from './notification-store.js'

const utf8 = new TextEncoder()
const BLOCK = 256 * 1024
/** At most this much of records' bytes is held: the RSS target at 100k (`npm run bench -- --only varied,memory`). */
const KEPT = 16 * 1024 * 1024
const HEAD = utf8.encode('{"status":"success","data":{"notifications":[')
const COMMA = 44
/** Block numbers of two arenas never meet: each numbers its blocks from its own multiple of this. */
const SPAN = 2 ** 32
let arenas = 0

/** A block of records' bytes, and whether a page read it since the last sweep. */
interface Block {
  bytes: Uint8Array
  read: boolean
}

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
 * record pushing out another. Entries name their block by number, never hold it, so a dropped
 * block is garbage at once; a record of a dropped block is written again when a page holds it.
 */
class Arena {
  /** Block number `#first + i` is `#blocks[i]`; undefined once dropped. */
  #blocks: (Block | undefined)[] = []
  #first: number
  #at = 0
  #held = 0
  /** Bytes of records written or spilled since the last sweep. */
  #passed = 0
  /** Blocks dropped and records written for one page only, so far (the tests read them). */
  dropped = 0
  spilled = 0

  constructor(readonly kept: number) {
    this.#first = ++arenas * SPAN
  }

  /** Bytes held in blocks now: less than `kept` plus one block. */
  get held(): number {
    return this.#held
  }

  /** The bytes holding the entry's record (marking its block read), or undefined when not written here or dropped since. */
  read(e: NotificationEntry): Uint8Array | undefined {
    const block = this.#block(e)
    if (block === undefined) return undefined
    block.read = true
    return block.bytes
  }

  /** The same without marking: the second look of one page. */
  peek(e: NotificationEntry): Uint8Array | undefined {
    return this.#block(e)?.bytes
  }

  #block(e: NotificationEntry): Block | undefined {
    const i = e.block - this.#first
    return i >= 0 && i < this.#blocks.length ? this.#blocks[i] : undefined
  }

  /** Writes the text into the newest block and points the entry at it; false when there is no room. */
  keep(e: NotificationEntry, text: string): boolean {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = text.length * 3
    this.#passed += text.length
    let block = this.#blocks[this.#blocks.length - 1]
    if (!block || block.bytes.length - this.#at < room) {
      if (this.#held >= this.kept) this.#sweep()
      if (this.#held >= this.kept) {
        this.spilled++
        return false
      }
      block = { bytes: new Uint8Array(Math.max(BLOCK, room)), read: false }
      this.#blocks.push(block)
      this.#held += block.bytes.length
      this.#at = 0
    }
    const { written } = utf8.encodeInto(text, block.bytes.subarray(this.#at))
    e.block = this.#first + this.#blocks.length - 1
    e.at = this.#at
    e.len = written
    this.#at += written
    return true
  }

  /** Drops the blocks no page read since the last sweep, once enough went through to tell. */
  #sweep(): void {
    if (this.#passed < this.kept / 4) return
    this.#passed = 0
    const newest = this.#blocks.length - 1
    for (let i = 0; i < newest; i++) {
      const block = this.#blocks[i]
      if (!block) continue
      if (block.read) block.read = false
      else {
        this.#blocks[i] = undefined
        this.#held -= block.bytes.length
        this.dropped++
      }
    }
    // The numbering moves past the dropped blocks at its start.
    let gone = 0
    while (gone < newest && this.#blocks[gone] === undefined) gone++
    this.#blocks.splice(0, gone)
    this.#first += gone
  }
}

/**
 * Writes list pages as UTF-8 bytes copied from the records' bytes: no JSON and no UTF-8
 * encoding per request beyond the pagination (`npm run bench -- --only varied`: a cache of
 * recent pages never held what a varied load asks). One per app, shared by its sandboxes
 * (their entries are shared forks). The plain version is `plainListPages` (plain-store.ts),
 * which store-reference.test.ts compares it with byte for byte.
 */
export class PageWriter implements ListPages {
  readonly #arena: Arena

  constructor(kept = KEPT) {
    this.#arena = new Arena(kept)
  }

  listPage(items: readonly NotificationEntry[], pagination: Pagination, unreviewedCount: number): RawJson {
    const tail = `],"pagination":{"page":${pagination.page},"limit":${pagination.limit},"total":${pagination.total},"totalPages":${pagination.totalPages}},"unreviewedCount":${unreviewedCount}}}`
    const out = this.write(items, tail)
    return new RawJson(out, new PageSource(this, items, tail, out.byteLength))
  }

  /** The page's bytes: the head, the records' bytes with commas, and the tail. */
  write(items: readonly NotificationEntry[], tail: string): Uint8Array {
    const arena = this.#arena
    let size = HEAD.length + tail.length + Math.max(0, items.length - 1)
    // Records that found no room, written anew for this page only.
    let spill: Uint8Array[] | undefined
    for (let i = 0; i < items.length; i++) {
      const e = items[i]
      if (arena.read(e) === undefined) {
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
      const bytes = spill?.[i] ?? arena.peek(e)?.subarray(e.at, e.at + e.len)
      // A page with more than a quarter of the arena's bytes may see its own first records'
      // block dropped: those are written again, the same `len` bytes.
      if (bytes) out.set(bytes, at), (at += bytes.length)
      else utf8.encodeInto(JSON.stringify(e.n), out.subarray(at, (at += e.len)))
    }
    // The tail is ASCII: one byte per character.
    utf8.encodeInto(tail, out.subarray(at))
    return out
  }

  /** Bytes the arena holds now; blocks it dropped and records it wrote for one page only, so far. */
  get arena(): { held: number; dropped: number; spilled: number } {
    return { held: this.#arena.held, dropped: this.#arena.dropped, spilled: this.#arena.spilled }
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
