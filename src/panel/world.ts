import { html } from 'htm/preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { ViewProps } from './types.js'
import { Clock } from './clock.js'
import { save } from './requests.js'
import { type ScheduleEntry, Timeline } from './timeline.js'

interface Scenario {
  name: string
  description: string
  advice?: string
  options: Record<string, unknown>
  schema?: { properties?: Record<string, { type?: string | string[]; enum?: unknown[]; anyOf?: { type?: string }[] }> }
  active: boolean
}

const numeric = (p: { type?: string | string[]; anyOf?: { type?: string }[] }) =>
  [p.type].flat().some((t) => t === 'number' || t === 'integer') ||
  (p.anyOf ?? []).some((a) => a.type === 'number' || a.type === 'integer')

type Chosen = Record<string, { on: boolean; options: Record<string, string> }>

/**
 * The `PUT /__sandbox/scenarios` body for what is ticked, options typed as each schema says;
 * entries with a window belong to the timeline and go back as they are.
 */
function activeBody(scenarios: Scenario[], chosen: Chosen, windowed: ScheduleEntry[]) {
  return {
    active: scenarios
      .filter((s) => chosen[s.name]?.on)
      .map((s) => {
        const options: Record<string, unknown> = {}
        for (const [k, raw] of Object.entries(chosen[s.name].options)) {
          const v = raw.trim()
          if (v === '') continue
          const prop = s.schema?.properties?.[k] ?? {}
          options[k] =
            v === 'null'
              ? null
              : numeric(prop) && !Number.isNaN(Number(v))
                ? Number(v)
                : v === 'true'
                  ? true
                  : v === 'false'
                    ? false
                    : v
        }
        return { name: s.name, options }
      })
      .concat(windowed),
  }
}

/**
 * Scenarios with their options, the clock, and reset: each a control API call. A tick applies
 * at once, and so does an option of a ticked scenario when it is committed (Enter, or leaving
 * the field): no Apply button to look for below the list.
 */
export function Controls({
  api,
  fail,
  version,
  clock,
}: ViewProps & { clock: { now: string; frozen: boolean } | undefined }) {
  const [scenarios, setScenarios] = useState<Scenario[] | undefined>()
  const [chosen, setChosen] = useState<Chosen>({})
  const [advance, setAdvance] = useState('')
  const [setTo, setSetTo] = useState('')
  const [seed, setSeed] = useState('')
  const [windowed, setWindowed] = useState<ScheduleEntry[]>([])
  /** Options typed and not yet committed, as `name\nkey`. */
  const editing = useRef(new Set<string>())

  useEffect(() => {
    api.call<{ scenarios: Scenario[]; schedule: ScheduleEntry[] }>('GET', '/scenarios').then((r) => {
      setScenarios(r.scenarios)
      setWindowed(r.schedule.filter((e) => e.from !== null || e.until !== null))
      // A tick is an entry without a window; one in force through a window shows on the timeline.
      const always = (name: string) => r.schedule.some((e) => e.name === name && e.from === null && e.until === null)
      // An option being typed (not yet committed) keeps what the person typed: a reload that a
      // change elsewhere started must not put the old value back under their cursor.
      setChosen((typed) =>
        Object.fromEntries(
          r.scenarios.map((s) => [
            s.name,
            {
              on: always(s.name),
              options: Object.fromEntries(
                Object.entries(s.options).map(([k, v]) => [
                  k,
                  editing.current.has(`${s.name}\n${k}`)
                    ? (typed[s.name]?.options[k] ?? '')
                    : v === null
                      ? 'null'
                      : v === undefined
                        ? ''
                        : Array.isArray(v)
                          ? v.join('|')
                          : String(v),
                ]),
              ),
            },
          ]),
        ),
      )
    }, fail)
  }, [api, version])

  const run = (fn: () => Promise<unknown>) => () => void fn().catch(fail)
  const apply = (next: Chosen) => {
    editing.current.clear()
    setChosen(next)
    void api.call('PUT', '/scenarios', activeBody(scenarios ?? [], next, windowed)).catch(fail)
  }
  const toggle = (name: string, on: boolean) => apply({ ...chosen, [name]: { ...chosen[name], on } })
  const option = (name: string, key: string, value: string) => {
    editing.current.add(`${name}\n${key}`)
    setChosen((now) => ({ ...now, [name]: { ...now[name], options: { ...now[name].options, [key]: value } } }))
  }
  const commit = (name: string) => chosen[name]?.on && apply(chosen)

  return html`
    <section class="controls">
      <h2>Clock</h2>
      <p>now <b><${Clock} clock=${clock} /></b></p>
      <div class="row">
        <label>advance by <input name="advance" value=${advance} placeholder="31d, 2h, 90s" onInput=${(e: Event) => setAdvance((e.target as HTMLInputElement).value)} /></label>
        <button onClick=${run(() => api.call('POST', '/clock', { advanceBy: /^\d+(\.\d+)?$/.test(advance.trim()) ? Number(advance) : advance.trim() }))}>Advance</button>
        <label>set to <input name="set" value=${setTo} placeholder="2026-01-31T12:00:00Z" onInput=${(e: Event) => setSetTo((e.target as HTMLInputElement).value)} /></label>
        <button onClick=${run(() => api.call('POST', '/clock', { set: setTo.trim() }))}>Set</button>
      </div>
      <h2>Scenarios</h2>
      <div class="row"><span class="muted grow">A tick turns a scenario on at once; an option applies when you press Enter or leave the field. For one request only: header <code>x-sandbox-scenario: name;option=value</code>.</span><button onClick=${run(() => api.call('PUT', '/scenarios', { active: [] }))}>Healthy (none)</button></div>
      ${(scenarios ?? []).map(
        (s) => html`
        <div class="scenario" data-name=${s.name}>
          <div class="row">
            <label class="name"><input type="checkbox" checked=${chosen[s.name]?.on} onChange=${(e: Event) => toggle(s.name, (e.target as HTMLInputElement).checked)} /> ${s.name}</label>
            ${Object.entries(s.schema?.properties ?? {}).map(
              ([k, p]) => html`
              <label>${k} <input class="option" data-key=${k} value=${chosen[s.name]?.options[k] ?? ''} placeholder=${p.enum ? p.enum.join(' | ') : numeric(p) ? 'number' : 'text'} onInput=${(e: Event) => option(s.name, k, (e.target as HTMLInputElement).value)} onChange=${() => commit(s.name)} /></label>`,
            )}
          </div>
          <div class="muted">${s.description}${s.advice ? ` — UI: ${s.advice}` : ''}</div>
        </div>`,
      )}
      <${Timeline} api=${api} fail=${fail} version=${version} names=${(scenarios ?? []).map((s) => s.name)} />
      <h2>Reset</h2>
      <div class="row">
        <label>seed <input name="seed" type="number" value=${seed} placeholder="same seed" onInput=${(e: Event) => setSeed((e.target as HTMLInputElement).value)} /></label>
        <button onClick=${run(() => api.call('POST', '/reset', seed.trim() === '' ? {} : { seed: Number(seed) }))}>Reset data, scenarios, clock, journal, outbox</button>
      </div>
    </section>
  `
}

interface Isolated {
  id: string
  createdAt: string
  lastUsedAt: string
  idleMs: number
}

/** The isolated sandboxes (`x-sandbox-id`) alive in this process: open one, or drop it. */
export function Sandboxes({ api, fail, current, open }: ViewProps & { current: string; open(id: string): void }) {
  const [list, setList] = useState<{ idleMs: number; sandboxes: Isolated[] } | undefined>()
  const refresh = () => api.call('GET', '/sandboxes').then(setList, fail)
  useEffect(() => void refresh(), [api])
  const drop = (id: string) => api.call('DELETE', `/sandboxes/${encodeURIComponent(id)}`).then(setList, fail)
  return html`
    <section>
      <div class="row"><span class="muted grow">Each <code>x-sandbox-id</code> (or cookie <code>sandbox-id</code>) selects its own copy of the whole state${list ? `, dropped after ${Math.round(list.idleMs / 60_000)} min unused` : ''}.</span><button onClick=${refresh}>Refresh</button></div>
      <table class="sandboxes">
        <thead><tr><th>id</th><th class="wide">created</th><th>last used</th><th></th></tr></thead>
        <tbody>
          <tr class=${current === '' ? 'selected' : ''}><td>default</td><td class="wide"></td><td></td><td><button disabled=${current === ''} onClick=${() => open('')}>Open</button></td></tr>
          ${(list?.sandboxes ?? []).map(
            (s) => html`
            <tr key=${s.id} data-id=${s.id} class=${current === s.id ? 'selected' : ''}>
              <td>${s.id}</td><td class="wide">${s.createdAt}</td><td>${s.lastUsedAt}</td>
              <td><button disabled=${current === s.id} onClick=${() => open(s.id)}>Open</button> <button onClick=${() => drop(s.id)}>Drop</button></td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${list && list.sandboxes.length === 0 && html`<p class="empty">No isolated sandbox yet: the first request with a new <code>x-sandbox-id</code> creates one.</p>`}
    </section>
  `
}

/** The whole state as one JSON file, and back. */
export function Snapshot({ api, fail }: ViewProps) {
  const [done, setDone] = useState<string | undefined>()
  const download = async () => {
    try {
      const res = await api.raw('GET', '/snapshot')
      save(await res.blob(), `fleet-sandbox-${api.world || 'default'}-snapshot.json`)
      setDone('Snapshot downloaded.')
    } catch (e) {
      fail(e)
    }
  }
  const upload = async (e: Event) => {
    const input = e.target as HTMLInputElement
    const file = input.files?.[0]
    if (!file) return
    try {
      await api.raw('PUT', '/snapshot', await file.text())
      setDone(`Restored ${file.name}.`)
    } catch (error) {
      setDone(undefined)
      fail(error)
    }
    input.value = ''
  }
  // A bundle (Requests: Download repro, or a teammate's file) rebuilt here; a 400 or 409 names what differs and changes nothing.
  const replay = async (e: Event) => {
    const input = e.target as HTMLInputElement
    const file = input.files?.[0]
    if (!file) return
    try {
      const res = await api.raw('POST', '/repro', await file.text())
      const { replayed, digest } = (await res.json()) as { replayed: number; digest: string }
      setDone(`Replayed ${file.name}: ${replayed} steps, the world matches the bundle's (${digest.slice(0, 15)}...).`)
    } catch (error) {
      setDone(undefined)
      fail(error)
    }
    input.value = ''
  }
  return html`
    <section>
      <p class="muted">Records, sessions, clock, scenarios, journal and outbox of world <b>${api.world || 'default'}</b>, as one JSON file. A restore replaces them all; a malformed file changes nothing.</p>
      <div class="row">
        <button onClick=${download}>Download snapshot</button>
        <label class="file">Restore from a file <input name="snapshot" type="file" accept="application/json,.json" onChange=${upload} /></label>
        <label class="file" title="A repro bundle, with or without a base: its world rebuilt in place of this one (fleet-sandbox replay FILE does the same)">Replay a repro bundle <input name="repro" type="file" accept="application/json,.json" onChange=${replay} /></label>
      </div>
      ${done && html`<p class="ok" role="status">${done}</p>`}
    </section>
  `
}

interface Dte {
  id: string
  invoiceId: string
  folio: number | null
  TrackID: string | null
  local_status: string
  updatedAt: string
}

const UNSETTLED = ['SII_UPLOAD_UNCERTAIN', 'SII_PENDING']

/** DTEs the tax authority has not settled: accept or reject each (`POST /__sandbox/dte/{id}/resolve`). */
export function Dtes({ api, fail, version }: ViewProps) {
  const [dtes, setDtes] = useState<Dte[] | undefined>()
  const load = async () => {
    const out: Dte[] = []
    for (let page = 1; page <= 50; page++) {
      const r = await api.call<{ items: Dte[]; pagination: { totalPages: number } }>(
        'GET',
        `/collections/dtes?page=${page}&limit=100`,
      )
      out.push(...r.items.filter((d) => UNSETTLED.includes(d.local_status)))
      if (page >= r.pagination.totalPages) break
    }
    setDtes(out)
  }
  useEffect(() => void load().catch(fail), [api, version])
  const resolve = (id: string, outcome: string) =>
    api
      .call('POST', `/dte/${encodeURIComponent(id)}/resolve`, { outcome })
      .then(load)
      .catch(fail)
  return html`
    <section>
      <p class="muted">Emissions left uncertain (<code>dte-upload-uncertain</code>) or pending (<code>dte-pending</code>) wait for the tax authority. Settle them here.</p>
      ${
        dtes === undefined
          ? html`<p class="muted">Loading DTEs…</p>`
          : dtes.length === 0
            ? html`<p class="empty">No DTE is uncertain or pending in this world.</p>`
            : html`<div class="scroll"><table class="dtes">
              <thead><tr><th>DTE</th><th>invoice</th><th>folio</th><th>status</th><th></th></tr></thead>
              <tbody>${dtes.map(
                (
                  d,
                ) => html`<tr key=${d.id} data-id=${d.id}><td>${d.id}</td><td>${d.invoiceId}</td><td>${d.folio ?? ''}</td><td>${d.local_status}</td>
                <td><button onClick=${() => resolve(d.id, 'accepted')}>Accept</button> <button onClick=${() => resolve(d.id, 'rejected')}>Reject</button></td></tr>`,
              )}
              </tbody></table></div>`
      }
    </section>
  `
}
