import { html } from 'htm/preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { JournalDetail, JournalEntry, Message, OutboxEntry } from './api.js'
import type { ViewProps } from './types.js'
import { curl, pretty, statusClass, time, viaLabel } from './format.js'
import { Changes } from './changes.js'

const statusGroups = ['all', '2xx', '3xx', '4xx', '5xx'] as const

/** The journal, live, with filters; a click on a row opens the request's details. */
export function Requests({
  api,
  fail,
  entries,
  focus,
}: ViewProps & { entries: JournalEntry[]; focus?: { id: number } }) {
  const [status, setStatus] = useState<(typeof statusGroups)[number]>('all')
  const [method, setMethod] = useState('all')
  const [text, setText] = useState('')
  const [fault, setFault] = useState('all')
  const [selected, setSelected] = useState<number | undefined>(focus?.id)
  // A row another tab links to (a conduct finding's request) opens, whatever the filters hide.
  useEffect(() => {
    if (focus) setSelected(focus.id)
  }, [focus])

  const methods = useMemo(() => [...new Set(entries.map((e) => e.method))].sort(), [entries])
  const faults = useMemo(() => [...new Set(entries.flatMap((e) => e.faults))].sort(), [entries])
  const shown = entries.filter(
    (e) =>
      (status === 'all' || String(e.status)[0] === status[0]) &&
      (method === 'all' || e.method === method) &&
      (text === '' || (e.path + e.query).toLowerCase().includes(text.toLowerCase())) &&
      (fault === 'all' ||
        (fault === 'any' ? e.faults.length > 0 : fault === 'none' ? e.faults.length === 0 : e.faults.includes(fault))),
  )

  const download = async () => {
    try {
      const res = await api.raw('GET', '/requests.har')
      save(await res.blob(), `fleet-sandbox-${api.world || 'default'}.har`)
    } catch (e) {
      fail(e)
    }
  }
  // A 409 (a world whose parts pass the repro log's bound) shows its reason as any refusal does.
  const repro = async () => {
    try {
      const res = await api.raw('GET', '/repro')
      save(await res.blob(), `fleet-sandbox-${api.world || 'default'}.repro.json`)
    } catch (e) {
      fail(e)
    }
  }
  const clear = async () => {
    try {
      await api.call('DELETE', '/requests')
      setSelected(undefined)
    } catch (e) {
      fail(e)
    }
  }

  return html`
    <section class="requests">
      <div class="row filters">
        <label>status <select name="status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value as never)}>${statusGroups.map((s) => html`<option value=${s}>${s}</option>`)}</select></label>
        <label>method <select name="method" value=${method} onChange=${(e: Event) => setMethod((e.target as HTMLSelectElement).value)}><option value="all">all</option>${methods.map((m) => html`<option value=${m}>${m}</option>`)}</select></label>
        <label>fault <select name="fault" value=${fault} onChange=${(e: Event) => setFault((e.target as HTMLSelectElement).value)}>
          <option value="all">all</option><option value="any">any fault</option><option value="none">no fault</option>${faults.map((f) => html`<option value=${f}>${f}</option>`)}
        </select></label>
        <label class="grow">path <input name="path" type="search" value=${text} placeholder="filter by path text" onInput=${(e: Event) => setText((e.target as HTMLInputElement).value)} /></label>
        <button onClick=${download}>Download HAR</button>
        <button onClick=${repro} title="The writes since the log began (the last reset, or a base), to rebuild this world elsewhere: fleet-sandbox replay FILE">Download repro</button>
        <button onClick=${clear}>Clear</button>
      </div>
      <div class="split">
        <div class="scroll">
          ${
            entries.length === 0
              ? html`<p class="empty">No requests yet. Requests to <code>/api/...</code> in this world appear here as they happen.</p>`
              : shown.length === 0
                ? html`<p class="empty">No request matches these filters (${entries.length} in the journal).</p>`
                : html`<table class="journal">
                  <thead><tr><th>#</th><th class="wide">at</th><th>method</th><th>path</th><th>status</th><th>faults</th><th class="wide">ms</th></tr></thead>
                  <tbody>${[...shown].reverse().map(
                    (e) => html`
                    <tr key=${e.id} data-id=${e.id} class=${selected === e.id ? 'selected' : ''} onClick=${() => setSelected(e.id)} tabIndex="0" onKeyDown=${(k: KeyboardEvent) => k.key === 'Enter' && setSelected(e.id)}>
                      <td>${e.id}</td><td class="wide">${time(e.at)}</td><td>${e.method}</td><td class="path">${e.path}${e.query}${viaLabel(e) && html` <span class="via">${viaLabel(e)}</span>`}</td>
                      <td><span class=${`status ${statusClass(e.status)}`}>${e.status}</span></td><td>${e.faults.map((f) => html`<span class="fault">${f}</span>`)}${e.conduct?.map((r) => html`<span class="conduct" title="a conduct rule this request broke (the Conduct tab)">${r}</span>`)}</td><td class="wide">${e.durationMs}</td>
                    </tr>`,
                  )}
                  </tbody>
                </table>`
          }
        </div>
        ${selected !== undefined && html`<${Details} api=${api} fail=${fail} id=${selected} close=${() => setSelected(undefined)} />`}
      </div>
    </section>
  `
}

function Details({ api, fail, id, close }: Pick<ViewProps, 'api' | 'fail'> & { id: number; close(): void }) {
  const [detail, setDetail] = useState<JournalDetail | undefined>()
  const [missing, setMissing] = useState<string | undefined>()
  const [copied, setCopied] = useState(false)
  const aside = useRef<HTMLElement>(null)
  // Below the list on a narrow screen: bring the details into view.
  useEffect(() => aside.current?.scrollIntoView({ block: 'nearest' }), [detail])
  useEffect(() => {
    setDetail(undefined)
    setMissing(undefined)
    setCopied(false)
    api
      .call<JournalDetail>('GET', `/requests/${id}`)
      .then(setDetail, (e: Error & { status?: number }) => (e.status === 404 ? setMissing(e.message) : fail(e)))
  }, [api, id])
  if (missing)
    return html`<aside class="details"><p class="empty">${missing}</p><button onClick=${close}>Close</button></aside>`
  if (!detail) return html`<aside class="details"><p class="muted">Loading request ${id}…</p></aside>`
  const command = curl(detail)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command)
      setCopied(true)
    } catch {
      // No clipboard (an insecure page): the command stays selectable below.
      setCopied(false)
    }
  }
  return html`
    <aside class="details" ref=${aside} aria-label=${`request ${id}`}>
      <div class="row"><h2>${detail.method} <span class=${`status ${statusClass(detail.status)}`}>${detail.status}</span></h2><span class="grow"></span><button onClick=${copy}>${copied ? 'Copied' : 'Copy as curl'}</button><button onClick=${close} aria-label="Close the details">✕</button></div>
      <p class="url">${detail.url || detail.path + detail.query}</p>
      <dl class="facts">
        <dt>at</dt><dd>${detail.at}</dd>
        <dt>duration</dt><dd>${detail.durationMs} ms</dd>
        <dt>faults</dt><dd>${detail.faults.length ? detail.faults.map((f) => html`<span class="fault">${f}</span>`) : 'none'}</dd>
        ${detail.conduct && html`<dt>conduct</dt><dd>${detail.conduct.map((r) => html`<span class="conduct">${r}</span>`)}</dd>`}
        ${viaLabel(detail) && html`<dt>via</dt><dd><span class="via">${viaLabel(detail)}</span></dd>`}
      </dl>
      <details class="curl"><summary>curl</summary><pre>${command}</pre></details>
      <${Changes} api=${api} fail=${fail} detail=${detail} />
      <${Side} title="Request" message=${detail.request} />
      <${Side} title="Response" message=${detail.response} />
    </aside>
  `
}

function Side({ title, message }: { title: string; message: Message }) {
  const headers = Object.entries(message.headers)
  return html`
    <h3>${title}</h3>
    <h4>Headers</h4>
    ${headers.length ? html`<table class="headers"><tbody>${headers.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</tbody></table>` : html`<p class="muted">none kept</p>`}
    <h4>Body ${message.truncated ? html`<span class="fault">cut at 64 KB of ${message.size} bytes</span>` : ''}</h4>
    ${message.body === null ? html`<p class="muted">no body</p>` : html`<pre class="body">${pretty(message.body)}</pre>`}
  `
}

/** The outbox, live: e-mails, messages, tokens, links and uploads the sandbox "sent". */
export function Outbox({ api, fail, entries }: ViewProps & { entries: OutboxEntry[] }) {
  const clear = async () => {
    try {
      await api.call('DELETE', '/outbox')
    } catch (e) {
      fail(e)
    }
  }
  return html`
    <section>
      <div class="row"><span class="muted grow">Newest last. Password-reset tokens and magic links are here.</span><button onClick=${clear}>Clear</button></div>
      ${
        entries.length === 0
          ? html`<p class="empty">The outbox is empty. E-mails, messages, reset tokens, magic links and tax authority uploads appear here as they happen.</p>`
          : html`<div class="scroll"><table class="outbox">
            <thead><tr><th>id</th><th class="wide">at</th><th>kind</th><th>to</th><th>subject</th><th>token</th><th>ref</th></tr></thead>
            <tbody>${entries.map((e) => html`<tr key=${e.id}><td>${e.id}</td><td class="wide">${time(e.at)}</td><td>${e.kind}</td><td>${e.to}</td><td>${e.subject}</td><td class="token">${e.token}</td><td>${e.ref}</td></tr>`)}</tbody>
          </table></div>`
      }
    </section>
  `
}

/** Offers a file for download, as a link click would. */
export function save(blob: Blob, name: string): void {
  const a = document.createElement('a')
  a.href = URL.createObjectURL(blob)
  a.download = name
  a.style.display = 'none'
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000)
}
