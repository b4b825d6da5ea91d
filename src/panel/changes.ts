import { html } from 'htm/preact'
import { useState } from 'preact/hooks'
import type { JournalDetail } from './api.js'
import type { ViewProps } from './types.js'
import { Value } from './value.js'

/** A JSON Pointer's segments (RFC 6901), as the journal's patch writes them. */
const segments = (path: string) =>
  path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))

/**
 * What a request changed, one line per record or field: collection, record, field, before →
 * after (a record added or removed shows whole on its side). With a rewind to just before or
 * just after it (`POST /__sandbox/rewind`).
 */
export function Changes({ api, fail, detail }: Pick<ViewProps, 'api' | 'fail'> & { detail: JournalDetail }) {
  const [done, setDone] = useState<string | undefined>()
  const changes = detail.changes
  if (!changes) return html`<h3>Changes</h3><p class="muted">none: this request changed nothing in the world</p>`
  const rewind = async (to: 'before' | 'after') => {
    try {
      const r = await api.call<{ undone: number }>('POST', '/rewind', { [to]: detail.id })
      setDone(`Rewound to ${to} request ${detail.id}: ${r.undone} request${r.undone === 1 ? '' : 's'} undone.`)
    } catch (e) {
      setDone(undefined)
      fail(e)
    }
  }
  return html`
    <h3>Changes</h3>
    <table class="changes">
      <thead><tr><th>collection</th><th>record</th><th>field</th><th>before → after</th></tr></thead>
      <tbody>${changes.patch.map((op) => {
        const [collection, record, ...field] = segments(op.path)
        return html`<tr class=${op.op}>
          <td>${collection}</td><td>${record}</td><td>${field.join('.') || html`<span class="muted">${op.op === 'add' ? 'added' : op.op === 'remove' ? 'removed' : 'record'}</span>`}</td>
          <td>${op.op === 'add' ? html`<span class="nil">none</span>` : html`<${Value} value=${op.from} />`} → ${op.op === 'remove' ? html`<span class="nil">none</span>` : html`<${Value} value=${op.value} />`}</td>
        </tr>`
      })}</tbody>
    </table>
    ${changes.outbox.length > 0 && html`<p class="muted">Outbox: ${changes.outbox.map((e) => `${e.id} (${e.kind})`).join(', ')}</p>`}
    <div class="row">
      <button onClick=${() => rewind('before')}>Rewind to before this</button>
      <button onClick=${() => rewind('after')}>Rewind to after this</button>
    </div>
    ${done && html`<p class="ok" role="status">${done}</p>`}
  `
}
