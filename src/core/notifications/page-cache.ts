import type { Pagination } from '../http/pagination.js'
import { RawJson } from '../http/reply.js'
import type { NotificationEntry } from './store.js'


const PAGES = 64
const utf8 = new TextEncoder()

/**
 * The list's body as UTF-8 bytes. A list is asked for again and again (polling, several
 * components, pagination back and forth), and encoding 25 KB of JSON was a fifth of a request:
 * the last pages are kept, keyed by everything the body holds: the entries' identities, the
 * pagination and the count. One per app, shared by its sandboxes (their entries are shared forks).
 */
export class PageCache {
  readonly #pages = new Map<string, Uint8Array>()
  #serials = 0

  listPage(items: NotificationEntry[], pagination: Pagination, unreviewedCount: number): RawJson {
    let key = `${pagination.page},${pagination.limit},${pagination.total},${unreviewedCount}`
    for (const e of items) key += `,${(e.serial ??= ++this.#serials)}`
    let bytes = this.#pages.get(key)
    if (bytes) {
      // Most recently used last, so the oldest goes first.
      this.#pages.delete(key)
    } else {
      const json = items.map((e) => (e.json ??= JSON.stringify(e.n)))
      bytes = utf8.encode(`{"status":"success","data":{"notifications":[${json.join(',')}],"pagination":${JSON.stringify(pagination)},"unreviewedCount":${unreviewedCount}}}`)
      if (this.#pages.size >= PAGES) this.#pages.delete(this.#pages.keys().next().value!)
    }
    this.#pages.set(key, bytes)
    return new RawJson(bytes)
  }
}
