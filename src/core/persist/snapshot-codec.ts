import { collectionNames } from '../store/fixtures.js'
import { WORLD_PARTS } from '../sandbox/parts.js'
import { type StoredMeta, keyRecord, stored } from './persisted.js'

/**
 * The values of a whole store (`PersistOptions.whole`) as the snapshot of `GET /__sandbox/snapshot`:
 * the `--state` file keeps that one documented format. Every part kept as one value (parts.ts
 * `store.value`) comes under its snapshot field; the port's last use is left out.
 */
export function snapshotOf(values: Map<string, unknown>): Record<string, unknown> {
  const { head, rows } = collect(values)
  return { ...head, ...Object.fromEntries(rows.map(([name, list]) => [name, list.map((r) => stored(r).v)])) }
}

/**
 * `JSON.stringify(snapshotOf(values))`, with each record's text kept in `cache` by the value the
 * store holds (a change puts a new one): `--state` saves as the world changes, and 100,000
 * notifications are not written out again for each save.
 */
export function snapshotText(values: Map<string, unknown>, cache: WeakMap<object, string>): string {
  const { head, rows } = collect(values)
  const textOf = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return JSON.stringify(stored(value).v)
    let text = cache.get(value)
    if (text === undefined) cache.set(value, (text = JSON.stringify((value as { v: unknown }).v)))
    return text
  }
  const parts = rows.map(([name, list]) => `${JSON.stringify(name)}:[${list.map(textOf).join(',')}]`)
  const text = JSON.stringify(head)
  return parts.length ? `${text.slice(0, -1)}${text === '{}' ? '' : ','}${parts.join(',')}}` : text
}

/** The snapshot without its records, and the records as the store holds them (`{s, v}`), in order. */
function collect(values: Map<string, unknown>): { head: Record<string, unknown>; rows: [string, unknown[]][] } {
  const meta = values.get('meta') as StoredMeta
  const parse = (key: string) => (values.has(key) ? JSON.parse(values.get(key) as string) : undefined)
  const records: Record<string, unknown[]> = {}
  for (const name of collectionNames) records[name] = []
  const sessions: { o: number; s: unknown }[] = []
  const logs: Record<string, [string, unknown][]> = { 'j:': [], 'o:': [] }
  for (const [key, value] of values) {
    const kind = key.slice(0, 2)
    const record = keyRecord(key)
    if (record) records[record.collection]?.push(value)
    else if (kind === 't:') sessions.push(stored(value))
    else if (kind in logs) logs[kind].push([key, stored(value)])
  }
  const log = (kind: string) => logs[kind].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v)
  // Journal entries sit in the slots of a ring: in the order of their ids, the current ones (persisted.ts).
  const first = (parse('k:jfirst') as number | undefined) ?? -Infinity
  const journal = logs['j:']
    .map(([, v]) => v as { id: number })
    .filter((e) => e.id >= first)
    .sort((a, b) => a.id - b.id)
  const clock = parse('k:clock') as { now: number; frozen: boolean }
  // Rows in insertion order (`s`); the notifications' index orders them by time itself.
  const seq = (value: unknown) => stored(value).s as number
  const rows = Object.entries(records).map(([name, list]): [string, unknown[]] => [
    name,
    list.sort((a, b) => seq(a) - seq(b)).filter((r) => stored(r).v !== null),
  ])
  const kept: Record<string, unknown> = {}
  for (const part of WORLD_PARTS)
    if ('value' in part.store && values.has(part.store.value)) kept[part.key] = parse(part.store.value)
  return {
    head: {
      version: 1,
      seed: meta.seed,
      clock: { now: new Date(clock.now).toISOString(), frozen: clock.frozen },
      ...kept,
      sessions: sessions.sort((a, b) => a.o - b.o).map((x) => x.s),
      journal,
      outbox: log('o:'),
    },
    rows,
  }
}
