import { tableSchemas } from '../store/collections.js'
import { WORLD_PARTS } from '../sandbox/parts.js'
import { type StoredMeta, stored } from './persisted.js'

/**
 * The values of a whole store (`PersistOptions.whole`) as the snapshot of `GET /__sandbox/snapshot`:
 * the `--state` file keeps that one documented format. Every part kept as one value (parts.ts
 * `store.value`) comes under its snapshot field; the port's last use is left out.
 */
export function snapshotOf(values: Map<string, unknown>): Record<string, unknown> {
  const meta = values.get('meta') as StoredMeta
  const parse = (key: string) => (values.has(key) ? JSON.parse(values.get(key) as string) : undefined)
  const records: Record<string, { s: number; v: unknown }[]> = { notifications: [] }
  for (const name of Object.keys(tableSchemas)) records[name] = []
  const sessions: { o: number; s: unknown }[] = []
  const logs: Record<string, [string, unknown][]> = { 'j:': [], 'o:': [] }
  for (const [key, value] of values) {
    const kind = key.slice(0, 2)
    if (kind === 'r:') records[key.slice(2, key.indexOf(':', 2))]?.push(stored(value))
    else if (kind === 'n:') records.notifications.push(stored(value))
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
  // Rows in insertion order (`s`); notifications have none (every one is 0), the index orders them.
  const inOrder = (name: string, list: { s: number; v: unknown }[]) =>
    name === 'notifications' ? list : list.sort((a, b) => a.s - b.s)
  const rows = Object.fromEntries(
    Object.entries(records).map(([name, list]) => [
      name,
      inOrder(name, list)
        .filter((r) => r.v !== null)
        .map((r) => r.v),
    ]),
  )
  const kept: Record<string, unknown> = {}
  for (const part of WORLD_PARTS)
    if ('value' in part.store && values.has(part.store.value)) kept[part.key] = parse(part.store.value)
  return {
    version: 1,
    seed: meta.seed,
    clock: { now: new Date(clock.now).toISOString(), frozen: clock.frozen },
    ...kept,
    sessions: sessions.sort((a, b) => a.o - b.o).map((x) => x.s),
    journal,
    outbox: log('o:'),
    ...rows,
  }
}
