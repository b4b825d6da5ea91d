/** The collections a change's patch keys by id (`sessions` by token, `outbox` by id). */
const KEYED = new Set(['sessions', 'outbox'])

/**
 * A snapshot in the shape the journal's `changes` patch (docs/contract.md "What a request
 * changed"): every collection of records an object keyed by id, sessions by token; the
 * journal, which is not part of the world, left out.
 */
export function keyed(snapshot: object): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(snapshot)) {
    if (name === 'journal') continue
    const records =
      Array.isArray(value) &&
      (KEYED.has(name) || value.every((r) => r && typeof r === 'object' && 'id' in r)) &&
      name !== 'scenarios' &&
      name !== 'overrides'
    out[name] = records
      ? Object.fromEntries(
          (value as Record<string, unknown>[]).map((r) => [String(name === 'sessions' ? r.token : r.id), r]),
        )
      : value
  }
  // The clock runs at real pace: compared apart.
  delete out.clock
  return out
}
