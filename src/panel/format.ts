import type { JournalDetail, JournalEntry } from './api.js'

/** A body for reading: JSON indented, anything else as sent. */
export function pretty(body: string | null): string {
  if (body === null) return ''
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** Headers a client sets by itself: left out of copy-as-curl. */
const implied = new Set([
  'host',
  'connection',
  'content-length',
  'accept-encoding',
  'user-agent',
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-dest',
  'accept-language',
  'origin',
  'referer',
])

export function curl(d: JournalDetail): string {
  const parts = ['curl']
  if (d.method !== 'GET') parts.push('-X', d.method)
  parts.push(quote(d.url || d.path + d.query))
  for (const [name, value] of Object.entries(d.request.headers)) {
    if (!implied.has(name) && !name.startsWith('sec-ch-')) parts.push('-H', quote(`${name}: ${value}`))
  }
  if (d.request.body !== null) parts.push('--data-raw', quote(d.request.body))
  return parts.join(' ')
}

export const time = (iso: string) => iso.slice(11, 19)

/** Who made a request when it was not an HTTP client: `MCP tool listLayers` (docs/agents.md), else none. */
export const viaLabel = (e: Pick<JournalEntry, 'via' | 'tool'>): string | undefined =>
  e.via === 'mcp' ? `MCP tool ${e.tool ?? '?'}` : undefined

export const statusClass = (status: number) =>
  status >= 500 ? 's5' : status >= 400 ? 's4' : status >= 300 ? 's3' : 's2'
