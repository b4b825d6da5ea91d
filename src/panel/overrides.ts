import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { ViewProps } from './types.js'
import type { Override as Stored } from '../core/overrides/override.js'

/** An override as `GET /__sandbox/overrides` lists it: as the sandbox keeps it, with what is left. */
type Override = Omit<Stored, 'seq'> & { remaining: number | null; findings?: { kind: string; pointer: string }[] }

const TEMPLATE = {
  match: { method: 'GET', path: '/api/vehicle-types' },
  respond: { status: 500, body: { message: 'down' } },
  times: 1,
}

/** The override as POST and PUT take it: what the list shows, less what the sandbox adds. */
function editable(o: Override): object {
  const match: Record<string, unknown> = { method: o.match.method, path: o.match.path }
  for (const key of ['query', 'headers', 'body'] as const) if (o.match[key] !== null) match[key] = o.match[key]
  if (o.match.anonymous) match.anonymous = true
  const out: Record<string, unknown> = { match, respond: o.respond }
  if (o.times !== null) out.times = o.times
  if (o.from) out.from = o.from
  if (o.until) out.until = o.until
  if (o.priority) out.priority = o.priority
  if (o.name) out.name = o.name
  return out
}

/**
 * The world's own answers (docs/your-own-answers.md): every override with how often it answered;
 * add one, edit or remove it. `requests` changes with each journal entry: the counts follow.
 */
export function Overrides({ api, version, fail, requests }: ViewProps & { requests: number }) {
  const [list, setList] = useState<Override[]>([])
  const [editing, setEditing] = useState<{ id?: string; text: string } | undefined>()
  const [note, setNote] = useState<string | undefined>()

  const load = async () => {
    try {
      setList((await api.call<{ overrides: Override[] }>('GET', '/overrides')).overrides)
    } catch (e) {
      fail(e)
    }
  }
  useEffect(() => void load(), [api, version, requests])

  const save = async () => {
    if (!editing) return
    let body: unknown
    try {
      body = JSON.parse(editing.text)
    } catch (e) {
      return setNote(`Not JSON: ${(e as Error).message}`)
    }
    try {
      const saved = await api.call<Override>(
        editing.id ? 'PUT' : 'POST',
        editing.id ? `/overrides/${encodeURIComponent(editing.id)}` : '/overrides',
        body,
      )
      const findings = saved.findings ?? []
      setNote(
        `${editing.id ? 'Saved' : 'Added'} ${saved.name ?? saved.id}${findings.length ? `; the document differs: ${findings.map((f) => `${f.kind} at "${f.pointer}"`).join(', ')}` : '.'}`,
      )
      setEditing(undefined)
      await load()
    } catch (e) {
      setNote(undefined)
      fail(e)
    }
  }
  const remove = async (id?: string) => {
    try {
      await api.call('DELETE', id ? `/overrides/${encodeURIComponent(id)}` : '/overrides')
      setNote(id ? `Removed ${id}.` : 'Removed every override.')
      await load()
    } catch (e) {
      fail(e)
    }
  }

  return html`
    <section class="overrides">
      <p class="muted">Answers of your own for world <b>${api.world || 'default'}</b>: a route answers what you say, as often and as long as you say. Reset clears them.</p>
      <div class="row">
        <button onClick=${() => (setNote(undefined), setEditing({ text: JSON.stringify(TEMPLATE, null, 2) }))}>Add an override</button>
        ${list.length > 0 && html`<button onClick=${() => remove()}>Remove all</button>`}
      </div>
      ${
        editing &&
        html`
        <div class="editor">
          <label>${editing.id ? `Edit ${editing.id}` : 'New override'} (JSON: match, respond, times, from, until, priority, name)
            <textarea name="override" rows="10" value=${editing.text} onInput=${(e: Event) => setEditing({ ...editing, text: (e.target as HTMLTextAreaElement).value })}></textarea>
          </label>
          <div class="row"><button onClick=${save}>${editing.id ? 'Save' : 'Add'}</button><button onClick=${() => setEditing(undefined)}>Cancel</button></div>
        </div>`
      }
      ${note && html`<p class="ok" role="status">${note}</p>`}
      ${
        list.length === 0
          ? html`<p class="muted">No override in this world.</p>`
          : html`<table>
            <thead><tr><th>name</th><th>match</th><th>answer</th><th>used</th><th>left</th><th>window</th><th>priority</th><th></th></tr></thead>
            <tbody>${list.map(
              (o) => html`
              <tr data-override=${o.id}>
                <td>${o.name ?? o.id}</td>
                <td><code>${o.match.method} ${o.match.path}</code>${o.match.anonymous ? ' (before auth)' : ''}</td>
                <td>${'error' in o.respond ? 'cut connection' : o.respond.status}${o.respond.delayMs ? ` after ${o.respond.delayMs} ms` : ''}</td>
                <td class="used">${o.used}</td>
                <td>${o.remaining ?? '∞'}</td>
                <td>${o.from || o.until ? `${o.from ?? '…'} → ${o.until ?? '…'}` : 'always'}</td>
                <td>${o.priority}</td>
                <td><button onClick=${() => (setNote(undefined), setEditing({ id: o.id, text: JSON.stringify(editable(o), null, 2) }))}>Edit</button> <button onClick=${() => remove(o.id)}>Remove</button></td>
              </tr>`,
            )}
            </tbody>
          </table>`
      }
    </section>
  `
}
