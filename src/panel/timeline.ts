import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { ViewProps } from './types.js'

/** An entry of `GET /__sandbox/scenarios` `schedule` (docs/scenarios.md "On a timeline"). */
export interface ScheduleEntry {
  name: string
  options: Record<string, unknown>
  from: string | null
  until: string | null
}

const at = (bound: string | null, open: number) => (bound === null ? open : Date.parse(bound))
const short = (iso: string | null, open: string) =>
  iso === null ? open : iso.replace('T', ' ').replace(/\.000Z$/, 'Z')

/**
 * The scenario schedule drawn on the sandbox clock, and a form that adds a window: both only
 * `GET`/`PUT /__sandbox/scenarios`, the whole schedule sent back with the new entry.
 */
export function Timeline({ api, fail, version, names }: ViewProps & { names: string[] }) {
  const [schedule, setSchedule] = useState<ScheduleEntry[] | undefined>()
  const [now, setNow] = useState<number | undefined>()
  const [draft, setDraft] = useState({ name: '', options: '', from: '+0s', until: '+2m' })

  const load = () =>
    Promise.all([
      api.call<{ schedule: ScheduleEntry[] }>('GET', '/scenarios'),
      api.call<{ now: string }>('GET', '/clock'),
    ]).then(([s, c]) => {
      setSchedule(s.schedule)
      setNow(Date.parse(c.now))
    }, fail)
  useEffect(() => void load(), [api, version])

  const put = (entries: unknown[]) => api.call('PUT', '/scenarios', { active: entries }).then(load, fail)
  const add = () => {
    let options: unknown = {}
    try {
      options = draft.options.trim() === '' ? {} : JSON.parse(draft.options)
    } catch {
      return fail(new Error('options: must be a JSON object, such as {"rate": 1}'))
    }
    const bound = (v: string) => (v.trim() === '' ? null : v.trim())
    void put([
      ...(schedule ?? []),
      { name: draft.name || names[0], options, from: bound(draft.from), until: bound(draft.until) },
    ])
  }
  const field = (key: keyof typeof draft) => (e: Event) =>
    setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })

  // The drawn span: every bound and now, with an open end shown a fifth past the last instant.
  const list = schedule ?? []
  const t = now ?? 0
  const instants = [
    t,
    ...list
      .flatMap((e) => [e.from, e.until])
      .filter((b): b is string => b !== null)
      .map(Date.parse),
  ]
  const lo = Math.min(...instants)
  const hi = Math.max(...instants, lo + 60_000)
  const pad = (hi - lo) / 5
  const [start, end] = [lo - (list.some((e) => e.from === null) ? pad : 0), hi + pad]
  const pct = (ms: number) => `${(((ms - start) / (end - start)) * 100).toFixed(2)}%`

  return html`
    <section class="timeline">
      <h2>Timeline</h2>
      <p class="muted">Each scenario entry shapes answers while the sandbox clock is in [from, until). Bounds: an ISO date-time or <code>+N</code> with s, m, h or d from now.</p>
      ${
        schedule === undefined
          ? html`<p class="muted">…</p>`
          : list.length === 0
            ? html`<p class="empty">No scenario scheduled: the sandbox is healthy.</p>`
            : html`<div class="lanes" style="position:relative">
              ${list.map((e, i) => {
                const from = at(e.from, start)
                const until = at(e.until, end)
                const on = from <= t && t < until
                return html`<div class="lane" data-name=${e.name} data-active=${on ? 'true' : 'false'} key=${i}>
                  <span class="lane-name">${e.name}</span>
                  <span class="lane-track"><span class=${on ? 'bar on' : 'bar'} style=${`left:${pct(from)};width:calc(${pct(until)} - ${pct(from)})`} title=${JSON.stringify(e.options)}></span><span class="now" style=${`left:${pct(t)}`}></span></span>
                  <span class="lane-when">${short(e.from, 'always')} → ${short(e.until, 'on')}</span>
                  <button onClick=${() => put(list.filter((_, j) => j !== i))}>Remove</button>
                </div>`
              })}
            </div>`
      }
      <div class="row add-window">
        <label>scenario <select name="window-name" value=${draft.name || names[0]} onChange=${field('name')}>${names.map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
        <label>options <input name="window-options" value=${draft.options} placeholder='{"rate": 1}' onInput=${field('options')} /></label>
        <label>from <input name="window-from" value=${draft.from} placeholder="+0s or ISO" onInput=${field('from')} /></label>
        <label>until <input name="window-until" value=${draft.until} placeholder="+2m or ISO" onInput=${field('until')} /></label>
        <button onClick=${add}>Add window</button>
      </div>
    </section>
  `
}
