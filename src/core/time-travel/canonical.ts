/** JSON with every object's keys in order: the same value is the same text wherever it was built. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v
    const sorted: Record<string, unknown> = {}
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
    return sorted
  })
}
