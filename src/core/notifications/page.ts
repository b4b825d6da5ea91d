import type { Pagination } from '../http/pagination.js'
import { type BodySource, RawJson } from '../http/reply.js'
import type { ListPages, NotificationEntry } from './notification-store.js'

const utf8 = new TextEncoder()
const BLOCK = 256 * 1024
/** At most this much of records' bytes is kept: the RSS target at 100k (`npm run bench -- --only varied,memory`). */
const KEPT = 16 * 1024 * 1024
const HEAD = utf8.encode('{"status":"success","data":{"notifications":[')
const COMMA = 44

/**
 * Records' UTF-8 JSON, written into large shared blocks: one view per record and no per-record
 * allocation. The bytes of a record depend on the record alone (entries are never edited in
 * place), so they are written once, on first use, whatever query asks for the record.
 */
class Arena {
  #block = new Uint8Array(0)
  #at = 0
  #allocated = 0

  constructor(readonly kept: number) {}

  /** Writes the text into a block and points the entry at it; false once `kept` bytes are kept. */
  keep(e: NotificationEntry, text: string): boolean {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = text.length * 3
    if (this.#block.length - this.#at < room) {
      if (this.#allocated >= this.kept) return false
      this.#block = new Uint8Array(Math.max(BLOCK, room))
      this.#allocated += this.#block.length
      this.#at = 0
    }
    const { written } = utf8.encodeInto(text, this.#block.subarray(this.#at))
    e.json = this.#block
    e.at = this.#at
    e.len = written
    this.#at += written
    return true
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
    let size = HEAD.length + tail.length + Math.max(0, items.length - 1)
    // Records past the memory bound, written anew for this page only.
    let spill: Uint8Array[] | undefined
    for (let i = 0; i < items.length; i++) {
      const e = items[i]
      if (e.json === undefined) {
        const json = JSON.stringify(e.n)
        if (!this.#arena.keep(e, json)) (spill ??= [])[i] = utf8.encode(json)
      }
      size += spill?.[i]?.length ?? e.len
    }
    const out = new Uint8Array(size)
    out.set(HEAD, 0)
    let at = HEAD.length
    for (let i = 0; i < items.length; i++) {
      if (i > 0) out[at++] = COMMA
      const e = items[i]
      const bytes = spill?.[i] ?? e.json!.subarray(e.at, e.at + e.len)
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
