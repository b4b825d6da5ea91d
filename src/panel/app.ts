import { html } from 'htm/preact'
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { ApiError, ControlApi, type Health, type JournalEntry, type OutboxEntry, type StreamEvent } from './api.js'
import { Clock, useClock } from './clock.js'
import { DataBrowser } from './data.js'
import { Drift } from './drift.js'
import { Contracts } from './contracts.js'
import { Conduct } from './conduct.js'
import { Overrides } from './overrides.js'
import { Outbox, Requests, save } from './requests.js'
import { Controls, Dtes, Sandboxes, Snapshot } from './world.js'
import { Agents } from './agents.js'

import type { ViewProps } from './types.js'

export interface PanelOptions {
  /** Where the sandbox answers: '' for the page's own origin. */
  base: string
  /** Shown inside an app's page (the browser runtime): a close button instead of the page title. */
  onClose?: () => void
  /**
   * Inside an app's page, where the worker answers: no control-token field (the worker never
   * asks for one), and the OpenAPI document is downloaded (a new tab would get the app's page).
   */
  inPage?: boolean
}

const WORLD_KEY = 'fleet-sandbox:sandbox-id'
const TOKEN_KEY = 'fleet-sandbox:control-token'
/** The panel keeps as many entries as the journal itself. */
const KEEP = 1000

/** Events that arrived while a list was loading: the list may have been read before them. */
interface Arrivals {
  journal: JournalEntry[]
  outbox: OutboxEntry[]
}
/** The list as read, then what arrived live and the list does not hold yet. */
const settle = <T extends { id: number | string }>(listed: T[], arrived: T[]) => {
  const have = new Set(listed.map((e) => e.id))
  return [...listed, ...arrived.filter((e) => !have.has(e.id))]
}

const stored = (key: string) => {
  try {
    return localStorage.getItem(key) ?? ''
  } catch {
    return ''
  }
}
const store = (key: string, value: string) => {
  try {
    localStorage.setItem(key, value)
  } catch {
    // storage off: the value lives for this page only
  }
}

const tabs = [
  'requests',
  'outbox',
  'data',
  'scenarios',
  'overrides',
  'sandboxes',
  'agents',
  'snapshot',
  'dte',
  'drift',
  'contracts',
  'conduct',
] as const
type Tab = (typeof tabs)[number]
const tabNames: Record<Tab, string> = {
  requests: 'Requests',
  outbox: 'Outbox',
  data: 'Data',
  scenarios: 'Scenarios & clock',
  overrides: 'Overrides',
  sandboxes: 'Sandboxes',
  agents: 'Agents',
  snapshot: 'Snapshot',
  dte: 'DTE reconciliation',
  drift: 'Drift',
  contracts: 'Contracts',
  conduct: 'Conduct',
}

export function App({ base, onClose, inPage }: PanelOptions) {
  const [world, setWorld] = useState(stored(WORLD_KEY))
  const [token, setToken] = useState(inPage ? '' : stored(TOKEN_KEY))
  const [worldInput, setWorldInput] = useState(world)
  const api = useMemo(() => new ControlApi(base, world, token), [base, world, token])
  const current = useRef(api)
  current.current = api

  const [tab, setTab] = useState<Tab>('requests')
  /** A journal row another tab points at (the Conduct tab's links): the Requests tab opens it. */
  const [focus, setFocus] = useState<{ id: number } | undefined>()
  const [health, setHealth] = useState<Health | undefined>()
  const [error, setError] = useState<{ world: string; message: string } | undefined>()
  const [live, setLive] = useState(false)
  const [journal, setJournal] = useState<JournalEntry[]>([])
  const [outbox, setOutbox] = useState<OutboxEntry[]>([])
  const [version, setVersion] = useState(0)
  /** Bumped by every request that may have written: the data views reload. */
  const [writes, setWrites] = useState(0)
  /** Bumped by `event: drift` (an upstream answer was checked): the Drift tab reloads. */
  const [checks, setChecks] = useState(0)

  // Errors belong to the world they came from: one from a world no longer on show is dropped.
  const fail = useCallback((e: unknown) => {
    const from = e instanceof ApiError ? e.world : current.current.world
    if (from !== current.current.world) return
    setError({ world: from, message: e instanceof Error ? e.message : String(e) })
  }, [])

  const loading = useRef(new Set<Arrivals>())

  const load = useCallback(
    async (what: { journal?: boolean; outbox?: boolean } = { journal: true, outbox: true }) => {
      const a = current.current
      const arrived: Arrivals = { journal: [], outbox: [] }
      loading.current.add(arrived)
      try {
        const h = await a.call<Health>('GET', '/health')
        if (a !== current.current) return
        setHealth(h)
        if (what.journal) {
          const { requests } = await a.call<{ requests: JournalEntry[] }>('GET', '/requests')
          if (a === current.current) setJournal(settle(requests, arrived.journal).slice(-KEEP))
        }
        if (what.outbox) {
          const list = await a.call<{ outbox: OutboxEntry[] }>('GET', '/outbox')
          if (a === current.current) setOutbox(settle(list.outbox, arrived.outbox))
        }
        if (a === current.current) setError(undefined)
      } catch (e) {
        fail(e)
      } finally {
        loading.current.delete(arrived)
      }
    },
    [fail],
  )

  useEffect(() => {
    // A new world starts empty: nothing of the previous one stays on show.
    setHealth(undefined)
    setJournal([])
    setOutbox([])
    setError(undefined)
    setLive(false)
    void load()
    const onEvent = (e: StreamEvent) => {
      if (e.type === 'request') {
        for (const arrived of loading.current) arrived.journal.push(e.data)
        setJournal((list) => [...list.slice(-(KEEP - 1)), e.data])
        if (e.data.method !== 'GET') setWrites((w) => w + 1)
      } else if (e.type === 'outbox') {
        for (const arrived of loading.current) arrived.outbox.push(e.data)
        setOutbox((list) => [...list, e.data])
      } else if (e.type === 'drift') setChecks((n) => n + 1)
      else {
        const change = e.data.change
        void load({
          journal: change === 'reset' || change === 'restore' || change === 'requests-cleared',
          outbox: change === 'reset' || change === 'restore' || change === 'outbox-cleared' || change === 'rewind',
        })
        setVersion((v) => v + 1)
      }
    }
    return api.listen(onEvent, (on, e) => {
      if (api !== current.current) return
      setLive(on)
      if (e) fail(e)
    })
  }, [api, load, fail])

  const openWorld = (id: string) => {
    const next = id.trim()
    store(WORLD_KEY, next)
    setWorldInput(next)
    setWorld(next)
  }
  const props: ViewProps = { api, version, fail }
  const worldName = world || 'default'
  const clock = useClock(api, version, fail)
  const downloadOpenApi = async () => {
    try {
      save(await (await api.raw('GET', '/openapi.json')).blob(), 'fleet-sandbox-openapi.json')
    } catch (e) {
      fail(e)
    }
  }

  return html`
    <div class="fsp"><div class="frame">
      <header>
        <h1>fleet-sandbox <span class="muted">inspector</span></h1>
        <span class=${`live ${live ? 'on' : 'off'}`} title=${live ? 'receiving events as they happen' : 'not connected'}>${live ? '● live' : '○ offline'}</span>
        ${
          inPage
            ? html`<button class="openapi" onClick=${downloadOpenApi} title="Download the OpenAPI document of everything the sandbox serves">OpenAPI ⤓</button>`
            : html`<a class="openapi" href=${api.url('/openapi.json')} target="_blank" rel="noopener">OpenAPI</a>`
        }
        ${onClose && html`<button class="close" onClick=${onClose} aria-label="Close the panel">✕</button>`}
      </header>
      <form class="row settings" onSubmit=${(e: Event) => (e.preventDefault(), openWorld(worldInput))}>
        <label>x-sandbox-id <input name="world" value=${worldInput} placeholder="default" onInput=${(e: Event) => setWorldInput((e.target as HTMLInputElement).value)} /></label>
        <button type="submit">Open</button>
        ${
          !inPage &&
          html`<label>control token <input name="token" type="password" value=${token} placeholder="(loopback: none)" onChange=${(
            e: Event,
          ) => {
            const v = (e.target as HTMLInputElement).value.trim()
            store(TOKEN_KEY, v)
            setToken(v)
          }} /></label>`
        }
      </form>
      <p class="world" data-world=${worldName}>
        World <b>${worldName}</b>
        ${health ? html` · seed ${health.seed} · now <${Clock} clock=${clock} /> · scenarios: ${health.scenarios.join(', ') || 'none (healthy)'}` : error ? '' : ' · loading…'}
      </p>
      ${error && error.world === world && html`<p class="error" role="alert">World ${worldName}: ${error.message}</p>`}
      <nav role="tablist">
        ${tabs.map((t) => html`<button role="tab" aria-selected=${tab === t} class=${tab === t ? 'active' : ''} onClick=${() => setTab(t)}>${tabNames[t]}${t === 'requests' ? ` (${journal.length})` : t === 'outbox' ? ` (${outbox.length})` : ''}</button>`)}
      </nav>
      <main key=${`${world}\n${token}`}>
        ${tab === 'requests' && html`<${Requests} ...${props} entries=${journal} focus=${focus} />`}
        ${tab === 'outbox' && html`<${Outbox} ...${props} entries=${outbox} />`}
        ${tab === 'data' && html`<${DataBrowser} ...${props} version=${version + writes} entries=${journal} />`}
        ${tab === 'scenarios' && html`<${Controls} ...${props} clock=${clock} />`}
        ${tab === 'overrides' && html`<${Overrides} ...${props} requests=${journal.at(-1)?.id ?? 0} />`}
        ${tab === 'sandboxes' && html`<${Sandboxes} ...${props} current=${world} open=${openWorld} />`}
        ${tab === 'agents' && html`<${Agents} ...${props} />`}
        ${tab === 'snapshot' && html`<${Snapshot} ...${props} />`}
        ${tab === 'dte' && html`<${Dtes} ...${props} version=${version + writes} />`}
        ${tab === 'drift' && html`<${Drift} ...${props} checks=${checks} />`}
        ${tab === 'contracts' && html`<${Contracts} ...${props} />`}
        ${tab === 'conduct' && html`<${Conduct} ...${props} requests=${journal.at(-1)?.id ?? 0} open=${(id: number) => (setFocus({ id }), setTab('requests'))} />`}
      </main>
    </div></div>
  `
}
