import { RawBody, ok } from '../http/reply.js'
import { defineRoute } from '../app/route.js'

/** The panel's route id: the page holds no state, so the control token check lets it through. */
export const PANEL_ROUTE_ID = 'sandboxPanel'

/**
 * The control panel: one self-contained page whose script calls the same `/__sandbox` routes
 * tests use (health, scenarios, clock, reset, requests, outbox). Everything it shows from the
 * sandbox goes through `textContent`, never `innerHTML`: journal paths are caller input.
 */
const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fleet-sandbox control panel</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1rem; color: #1d2430; }
  h1 { font-size: 1.3rem; } h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
  section { border-top: 1px solid #d6dbe3; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; }
  td, th { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid #eef0f4; vertical-align: top; }
  input[type=text], input[type=number] { width: 9rem; }
  .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .3rem 0; }
  .muted { color: #68707d; } .error { color: #b3261e; white-space: pre-wrap; }
  .scenario { padding: .35rem 0; border-bottom: 1px solid #eef0f4; }
  .scenario label.name { font-weight: 600; min-width: 12rem; }
  code { background: #f3f5f8; padding: 0 .2rem; }
</style>
</head>
<body>
<h1>fleet-sandbox control panel</h1>
<div class="row">
  <label>x-sandbox-id <input id="sandbox-id" type="text" placeholder="default"></label>
  <label>control token <input id="control-token" type="password" placeholder="(loopback: none)"></label>
  <button id="refresh">Refresh all</button>
</div>
<p id="error" class="error" role="alert"></p>

<section><h2>Health</h2><p id="health" class="muted">…</p></section>

<section><h2>Scenarios</h2>
  <p class="muted">Tick, set options, then apply. Per request instead: header <code>x-sandbox-scenario: name;option=value</code>.</p>
  <div id="scenarios"></div>
  <div class="row"><button id="apply-scenarios">Apply scenarios</button><button id="clear-scenarios">Healthy (none)</button></div>
</section>

<section><h2>Clock</h2>
  <p id="clock" class="muted">…</p>
  <div class="row">
    <label>advance by <input id="advance-by" type="text" placeholder="31d, 2h, 90s"></label><button id="advance">Advance</button>
    <label>set to <input id="set-to" type="text" placeholder="2026-01-31T12:00:00Z"></label><button id="set">Set</button>
  </div>
</section>

<section><h2>Reset</h2>
  <div class="row"><label>seed <input id="seed" type="number" placeholder="same seed"></label><button id="reset">Reset data, scenarios, clock, journal, outbox</button></div>
</section>

<section><h2>Request journal <span class="muted">(newest last)</span></h2>
  <div class="row"><button id="load-requests">Refresh</button><button id="clear-requests">Clear</button></div>
  <table><thead><tr><th>id</th><th>at</th><th>method</th><th>path</th><th>status</th><th>faults</th><th>ms</th></tr></thead><tbody id="requests"></tbody></table>
</section>

<section><h2>Outbox</h2>
  <div class="row"><button id="load-outbox">Refresh</button><button id="clear-outbox">Clear</button></div>
  <table><thead><tr><th>id</th><th>at</th><th>kind</th><th>to</th><th>subject</th><th>token</th><th>ref</th></tr></thead><tbody id="outbox"></tbody></table>
</section>

<script>
(() => {
  const $ = (id) => document.getElementById(id)
  const stored = (key, input) => { input.value = localStorage.getItem(key) || ''; input.addEventListener('change', () => { localStorage.setItem(key, input.value.trim()); refreshAll() }) }
  stored('fleet-sandbox:sandbox-id', $('sandbox-id'))
  stored('fleet-sandbox:control-token', $('control-token'))

  async function call(method, path, body) {
    const headers = {}
    const id = $('sandbox-id').value.trim(), token = $('control-token').value.trim()
    if (id) headers['x-sandbox-id'] = id
    if (token) headers['x-sandbox-control-token'] = token
    if (body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch('/__sandbox' + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const data = await res.json().catch(() => ({}))
    if (!res.ok) throw new Error(method + ' /__sandbox' + path + ': ' + res.status + ' ' + (data.message || data.error || ''))
    $('error').textContent = ''
    return data
  }
  const guard = (fn) => async () => { try { await fn() } catch (e) { $('error').textContent = e.message } }

  function cell(tr, value) { const td = document.createElement('td'); td.textContent = value === null || value === undefined ? '' : String(value); tr.appendChild(td) }
  function rows(tbody, list, fields) {
    tbody.replaceChildren(...list.map((e) => { const tr = document.createElement('tr'); for (const f of fields) cell(tr, Array.isArray(e[f]) ? e[f].join(', ') : e[f]); return tr }))
  }

  async function loadHealth() {
    const h = await call('GET', '/health')
    $('health').textContent = 'status ' + h.status + ' · sandbox ' + (h.sandbox || 'default') + ' · seed ' + h.seed + ' · now ' + h.now + ' · scenarios: ' + (h.scenarios.join(', ') || 'none (healthy)')
  }
  async function loadClock() {
    const c = await call('GET', '/clock')
    $('clock').textContent = 'now ' + c.now + (c.frozen ? ' (frozen)' : '')
  }

  function optionInput(name, key, prop, value) {
    const input = document.createElement('input')
    const numeric = [prop.type].flat().includes('number') || [prop.type].flat().includes('integer') || (prop.anyOf || []).some((p) => p.type === 'number' || p.type === 'integer')
    input.type = 'text'
    input.dataset.key = key
    input.dataset.numeric = numeric ? '1' : ''
    input.placeholder = prop.enum ? prop.enum.join(' | ') : numeric ? 'number' : 'text'
    input.value = value === undefined ? '' : value === null ? 'null' : String(value)
    const label = document.createElement('label')
    label.append(key + ' ', input)
    return label
  }
  async function loadScenarios() {
    const { scenarios } = await call('GET', '/scenarios')
    $('scenarios').replaceChildren(...scenarios.map((s) => {
      const div = document.createElement('div')
      div.className = 'scenario'
      div.dataset.name = s.name
      const row = document.createElement('div')
      row.className = 'row'
      const box = document.createElement('input')
      box.type = 'checkbox'
      box.checked = s.active
      const label = document.createElement('label')
      label.className = 'name'
      label.append(box, ' ' + s.name)
      row.append(label)
      for (const [key, prop] of Object.entries((s.schema && s.schema.properties) || {})) row.append(optionInput(s.name, key, prop, s.options[key]))
      const text = document.createElement('div')
      text.className = 'muted'
      text.textContent = s.description + (s.advice ? ' — UI: ' + s.advice : '')
      div.append(row, text)
      return div
    }))
  }
  function chosenScenarios() {
    return [...document.querySelectorAll('.scenario')].filter((d) => d.querySelector('input[type=checkbox]').checked).map((d) => {
      const options = {}
      for (const input of d.querySelectorAll('input[data-key]')) {
        const raw = input.value.trim()
        if (raw === '') continue
        options[input.dataset.key] = raw === 'null' ? null : input.dataset.numeric && !Number.isNaN(Number(raw)) ? Number(raw) : raw
      }
      return { name: d.dataset.name, options }
    })
  }
  async function loadRequests() { rows($('requests'), (await call('GET', '/requests')).requests, ['id', 'at', 'method', 'path', 'status', 'faults', 'durationMs']) }
  async function loadOutbox() { rows($('outbox'), (await call('GET', '/outbox')).outbox, ['id', 'at', 'kind', 'to', 'subject', 'token', 'ref']) }
  async function refreshAll() { await guard(async () => { await Promise.all([loadHealth(), loadClock(), loadScenarios(), loadRequests(), loadOutbox()]) })() }

  $('refresh').onclick = refreshAll
  $('apply-scenarios').onclick = guard(async () => { await call('PUT', '/scenarios', { active: chosenScenarios() }); await Promise.all([loadScenarios(), loadHealth()]) })
  $('clear-scenarios').onclick = guard(async () => { await call('PUT', '/scenarios', { active: [] }); await Promise.all([loadScenarios(), loadHealth()]) })
  $('advance').onclick = guard(async () => { const v = $('advance-by').value.trim(); await call('POST', '/clock', { advanceBy: /^\\d+(\\.\\d+)?$/.test(v) ? Number(v) : v }); await Promise.all([loadClock(), loadHealth()]) })
  $('set').onclick = guard(async () => { await call('POST', '/clock', { set: $('set-to').value.trim() }); await Promise.all([loadClock(), loadHealth()]) })
  $('reset').onclick = guard(async () => { const seed = $('seed').value.trim(); await call('POST', '/reset', seed === '' ? {} : { seed: Number(seed) }); await refreshAll() })
  $('load-requests').onclick = guard(loadRequests)
  $('clear-requests').onclick = guard(async () => { await call('DELETE', '/requests'); await loadRequests() })
  $('load-outbox').onclick = guard(loadOutbox)
  $('clear-outbox').onclick = guard(async () => { await call('DELETE', '/outbox'); await loadOutbox() })
  refreshAll()
})()
</script>
</body>
</html>
`

export const panel = defineRoute({
  id: PANEL_ROUTE_ID, method: 'GET', path: '/__sandbox', tag: 'sandbox control', auth: { kind: 'control', page: true },
  summary: 'The control panel page (HTML): health, scenarios, clock, reset, request journal and outbox',
  response: { description: 'The panel page', mediaType: 'text/html' },
  handler: () => ok(new RawBody(page, 'text/html; charset=utf-8'), { 'cache-control': 'no-store' }),
})

export const panelRoutes = [panel]
