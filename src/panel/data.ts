import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { ViewProps } from './types.js'
import type { JournalEntry } from './api.js'
import { Value } from './value.js'

interface Page {
  items: Record<string, unknown>[]
  pagination: { page: number; limit: number; total: number; totalPages: number }
}

/** Columns shown until the user picks: the first six fields. */
const DEFAULT_COLUMNS = 6

/**
 * The world's records, one collection at a time, a page at a time (`GET /__sandbox/collections`):
 * found by id or by any text in them (`?id=`, `?q=`), in the columns the user picks, nested
 * values opened in place.
 */
export function DataBrowser({ api, fail, version, entries }: ViewProps & { entries: JournalEntry[] }) {
  /** The world now, or as it was just before a journal entry that changed it (`?before=`). */
  const [before, setBefore] = useState('')
  const [collections, setCollections] = useState<{ name: string; count: number }[] | undefined>()
  const [name, setName] = useState<string | undefined>()
  const [page, setPage] = useState(1)
  const [limit, setLimit] = useState(20)
  const [data, setData] = useState<Page | undefined>()
  const [open, setOpen] = useState<number | undefined>()
  /** What is typed, and the search applied (on Enter or Find). */
  const [typed, setTyped] = useState({ by: 'text' as 'id' | 'text', value: '' })
  const [search, setSearch] = useState(typed)
  /** Picked columns per collection; none picked: the first six. */
  const [picked, setPicked] = useState<Record<string, string[]>>({})

  useEffect(() => {
    api
      .call<{ collections: { name: string; count: number }[] }>('GET', '/collections')
      .then((r) => setCollections(r.collections), fail)
  }, [api, version])
  useEffect(() => {
    if (!name) return
    setOpen(undefined)
    const find =
      search.value.trim() === '' ? '' : `&${search.by === 'id' ? 'id' : 'q'}=${encodeURIComponent(search.value.trim())}`
    api
      .call<Page>('GET', `/collections/${name}?page=${page}&limit=${limit}${find}${before ? `&before=${before}` : ''}`)
      .then(setData, fail)
  }, [api, name, page, limit, version, search, before])
  const writes = entries.filter((e) => e.changes)

  const choose = (n: string) => {
    setName(n)
    setPage(1)
    setData(undefined)
    setTyped({ by: 'text', value: '' })
    setSearch({ by: 'text', value: '' })
  }
  const fields = data?.items.length ? [...new Set(data.items.flatMap((item) => Object.keys(item)))] : []
  const columns =
    name && picked[name] ? fields.filter((f) => picked[name].includes(f)) : fields.slice(0, DEFAULT_COLUMNS)
  const pick = (field: string, on: boolean) => {
    const next = on ? [...columns, field] : columns.filter((c) => c !== field)
    setPicked({ ...picked, [name!]: next })
  }

  return html`
    <section class="data">
      <div class="row">
        <label>collection <select name="collection" value=${name ?? ''} onChange=${(e: Event) => choose((e.target as HTMLSelectElement).value)}>
          <option value="" disabled>choose…</option>
          ${(collections ?? []).map((c) => html`<option value=${c.name}>${c.name} (${c.count})</option>`)}
        </select></label>
        ${
          name &&
          html`
          <form class="find" onSubmit=${(e: Event) => (e.preventDefault(), setPage(1), setSearch(typed))}>
            <select name="by" aria-label="search by" value=${typed.by} onChange=${(e: Event) => setTyped({ ...typed, by: (e.target as HTMLSelectElement).value as 'id' | 'text' })}><option value="text">text</option><option value="id">id</option></select>
            <input name="find" type="search" placeholder="find records (Enter)" value=${typed.value} onInput=${(e: Event) => setTyped({ ...typed, value: (e.target as HTMLInputElement).value })} />
            <button type="submit">Find</button>
          </form>`
        }
        ${
          writes.length > 0 &&
          html`<label>as of <select name="before" value=${before} onChange=${(e: Event) => (setBefore((e.target as HTMLSelectElement).value), setPage(1))}>
          <option value="">now</option>
          ${[...writes].reverse().map((e) => html`<option value=${String(e.id)}>before #${e.id} ${e.method} ${e.path}</option>`)}
        </select></label>`
        }
        <label>per page <select name="limit" value=${String(limit)} onChange=${(e: Event) => (setLimit(Number((e.target as HTMLSelectElement).value)), setPage(1))}>${[10, 20, 50, 100].map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
        ${
          data &&
          html`
          <button disabled=${page <= 1} onClick=${() => setPage(page - 1)}>‹ Prev</button>
          <span class="pages">page ${data.pagination.page} of ${Math.max(1, data.pagination.totalPages)} · ${data.pagination.total} records</span>
          <button disabled=${page >= data.pagination.totalPages} onClick=${() => setPage(page + 1)}>Next ›</button>`
        }
        ${
          fields.length > 0 &&
          html`
          <details class="columns">
            <summary>Columns (${columns.length} of ${fields.length})</summary>
            <div class="picker">${fields.map((f) => html`<label><input type="checkbox" name="column" value=${f} checked=${columns.includes(f)} onChange=${(e: Event) => pick(f, (e.target as HTMLInputElement).checked)} /> ${f}</label>`)}</div>
          </details>`
        }
      </div>
      ${
        !name
          ? html`<div class="chips">${collections === undefined ? html`<p class="muted">Loading collections…</p>` : collections.map((c) => html`<button class="chip" onClick=${() => choose(c.name)}>${c.name} <b>${c.count}</b></button>`)}</div>`
          : !data
            ? html`<p class="muted">Loading ${name}…</p>`
            : data.items.length === 0
              ? html`<p class="empty">${search.value.trim() ? `No record of ${name} has ${search.by === 'id' ? 'the id' : 'the text'} "${search.value.trim()}".` : `${name} has no records in this world.`}</p>`
              : html`<div class="scroll"><table class="records">
                <thead><tr>${columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
                <tbody>${data.items.map(
                  (item, i) => html`
                  <tr key=${i} onClick=${() => setOpen(open === i ? undefined : i)} class=${open === i ? 'selected' : ''}>${columns.map((c) => html`<td><${Value} value=${item[c]} /></td>`)}</tr>
                  ${open === i && html`<tr class="record"><td colSpan=${columns.length}><${Value} value=${item} open /></td></tr>`}`,
                )}
                </tbody>
              </table></div>`
      }
    </section>
  `
}
