import type { Sandbox } from '../sandbox/sandbox.js'

/**
 * The inspector's collections (GET /__sandbox/collections[/name], inspector.ts), loaded on first
 * use. It imports nothing (types aside), so the browser entry splits into no more chunks.
 */
/** Every collection of the world: the tables and the notifications. */
function collectionRows(sandbox: Sandbox): Map<string, () => unknown[]> {
  const out = new Map<string, () => unknown[]>()
  for (const [name, table] of sandbox.world.collections()) out.set(name, () => table.all())
  return out
}

/** The inspector's search: a scan, fine for a person typing (100,000 notifications at most). */
function search<R extends { id?: unknown }>(rows: R[], { id, q }: { id?: string; q?: string }): R[] {
  let out = id === undefined ? rows : rows.filter((r) => String(r.id) === id)
  if (q !== undefined) {
    const text = q.toLowerCase()
    out = out.filter((r) => JSON.stringify(r).toLowerCase().includes(text))
  }
  return out
}

export function collectionList(sandbox: Sandbox): { name: string; count: number }[] {
  return sandbox.world.collections().map(([name, table]) => ({ name, count: table.size }))
}

/** The rows of one collection that match `id` and `q`; undefined when there is no such collection (with the known names). */
export function collectionRowsOf(
  sandbox: Sandbox,
  name: string,
  query: { id?: string; q?: string },
  then?: (rows: unknown[]) => unknown[],
): { rows?: unknown[]; known: string[] } {
  const all = collectionRows(sandbox)
  const rows = all.get(name)
  // `then`: the rows as they were at a moment of the journal (`?before=`), before the search.
  return { rows: rows && search((then ? then(rows()) : rows()) as { id?: unknown }[], query), known: [...all.keys()] }
}
