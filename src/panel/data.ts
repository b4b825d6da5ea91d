import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { ViewProps } from './app.js'

interface Page {
  items: Record<string, unknown>[]
  pagination: { page: number; limit: number; total: number; totalPages: number }
}

const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v))

/** The world's records, one collection at a time, a page at a time (`GET /__sandbox/collections`). */
export function DataBrowser({ api, fail, version }: ViewProps) {
  const [collections, setCollections] = useState<{ name: string; count: number }[] | undefined>()
  const [name, setName] = useState<string | undefined>()
  const [page, setPage] = useState(1)
  const [limit, setLimit] = useState(20)
  const [data, setData] = useState<Page | undefined>()
  const [open, setOpen] = useState<number | undefined>()

  useEffect(() => {
    api.call<{ collections: { name: string; count: number }[] }>('GET', '/collections').then((r) => setCollections(r.collections), fail)
  }, [api, version])
  useEffect(() => {
    if (!name) return
    setOpen(undefined)
    api.call<Page>('GET', `/collections/${name}?page=${page}&limit=${limit}`).then(setData, fail)
  }, [api, name, page, limit, version])

  const choose = (n: string) => {
    setName(n)
    setPage(1)
    setData(undefined)
  }
  const columns = data?.items.length ? Object.keys(data.items[0]).slice(0, 6) : []

  return html`
    <section class="data">
      <div class="row">
        <label>collection <select name="collection" value=${name ?? ''} onChange=${(e: Event) => choose((e.target as HTMLSelectElement).value)}>
          <option value="" disabled>choose…</option>
          ${(collections ?? []).map((c) => html`<option value=${c.name}>${c.name} (${c.count})</option>`)}
        </select></label>
        <label>per page <select name="limit" value=${String(limit)} onChange=${(e: Event) => (setLimit(Number((e.target as HTMLSelectElement).value)), setPage(1))}>${[10, 20, 50, 100].map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
        ${data && html`
          <button disabled=${page <= 1} onClick=${() => setPage(page - 1)}>‹ Prev</button>
          <span class="pages">page ${data.pagination.page} of ${Math.max(1, data.pagination.totalPages)} · ${data.pagination.total} records</span>
          <button disabled=${page >= data.pagination.totalPages} onClick=${() => setPage(page + 1)}>Next ›</button>`}
      </div>
      ${!name
        ? html`<div class="chips">${collections === undefined ? html`<p class="muted">Loading collections…</p>` : collections.map((c) => html`<button class="chip" onClick=${() => choose(c.name)}>${c.name} <b>${c.count}</b></button>`)}</div>`
        : !data
          ? html`<p class="muted">Loading ${name}…</p>`
          : data.items.length === 0
            ? html`<p class="empty">${name} has no records in this world.</p>`
            : html`<div class="scroll"><table class="records">
                <thead><tr>${columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
                <tbody>${data.items.map((item, i) => html`
                  <tr key=${i} onClick=${() => setOpen(open === i ? undefined : i)} class=${open === i ? 'selected' : ''}>${columns.map((c) => html`<td>${cell(item[c])}</td>`)}</tr>
                  ${open === i && html`<tr class="record"><td colSpan=${columns.length}><pre>${JSON.stringify(item, null, 2)}</pre></td></tr>`}`)}
                </tbody>
              </table></div>`}
    </section>
  `
}
