import { RawJson } from '../http/reply.js'
import type { NotificationEntry } from './store.js'

export interface Pagination {
  page: number
  limit: number
  total: number
  totalPages: number
}

const PAGES = 64
const pages = new Map<string, Uint8Array>()
const utf8 = new TextEncoder()
let serials = 0

/**
 * The list's body as UTF-8 bytes. A list is asked for again and again (polling, several
 * components, pagination back and forth), and encoding 25 KB of JSON was a fifth of a request:
 * the last pages are kept, keyed by everything the body holds: the entries' identities, the
 * pagination and the count.
 */
export function listPage(items: NotificationEntry[], pagination: Pagination, unreviewedCount: number): RawJson {
  let key = `${pagination.page},${pagination.limit},${pagination.total},${unreviewedCount}`
  for (const e of items) key += `,${(e.serial ??= ++serials)}`
  let bytes = pages.get(key)
  if (bytes) {
    // Most recently used last, so the oldest goes first.
    pages.delete(key)
  } else {
    const json = items.map((e) => (e.json ??= JSON.stringify(e.n)))
    bytes = utf8.encode(`{"status":"success","data":{"notifications":[${json.join(',')}],"pagination":${JSON.stringify(pagination)},"unreviewedCount":${unreviewedCount}}}`)
    if (pages.size >= PAGES) pages.delete(pages.keys().next().value!)
  }
  pages.set(key, bytes)
  return new RawJson(bytes)
}
