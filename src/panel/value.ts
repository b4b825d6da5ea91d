import { html } from 'htm/preact'

/** A short label for a nested value: what a closed node shows. */
const summary = (v: object) => (Array.isArray(v) ? `[${v.length}]` : `{${Object.keys(v).join(', ')}}`)

/**
 * A record's value for reading: text as it is, an object or a list as a node that opens to its
 * fields (each a Value again), so nested data reads as a tree, not as one line of JSON.
 */
export function Value({ value, open = false }: { value: unknown; open?: boolean }) {
  if (value === null || value === undefined) return html`<span class="nil">${String(value)}</span>`
  if (typeof value !== 'object') return html`<span class=${typeof value}>${String(value)}</span>`
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)
  if (entries.length === 0) return html`<span class="nil">${Array.isArray(value) ? '[]' : '{}'}</span>`
  return html`<details class="value" open=${open} onClick=${(e: Event) => e.stopPropagation()}>
    <summary>${summary(value)}</summary>
    <dl>${entries.map(([k, v]) => html`<dt>${k}</dt><dd><${Value} value=${v} /></dd>`)}</dl>
  </details>`
}
