import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { ConductReport } from '../core/conduct/report.js'
import type { ViewProps } from './types.js'

/**
 * The app's conduct in this world (`GET /__sandbox/conduct`, docs/conduct.md): the spec's retry
 * rules it broke, each linked to its journal rows, and the statuses and scenarios each operation
 * it called met, as a table. Read again as requests arrive.
 */
export function Conduct({
  api,
  fail,
  version,
  requests,
  open,
}: ViewProps & { requests: number; open(id: number): void }) {
  const [report, setReport] = useState<ConductReport | undefined>()
  useEffect(() => {
    api.call<ConductReport>('GET', '/conduct').then(setReport, fail)
  }, [api, version, requests])
  if (!report) return html`<p class="empty">Loading…</p>`
  return html`
    <section class="conduct">
      <h2>Findings (${report.findings.length})</h2>
      ${
        report.findings.length === 0
          ? html`<p class="empty">No finding: the app kept the spec's retry rules in this world so far.</p>`
          : html`<ul class="findings">${report.findings.map(
              (f) => html`<li data-rule=${f.rule}>
                <b class="fault">${f.rule}</b> <code>${f.operationId}</code> <span class="muted">${f.spec}</span>
                <p>${f.message}</p>
                <span class="muted">requests</span> ${f.requests.map((id) => html`<button class="link" data-request=${id} onClick=${() => open(id)}>#${id}</button> `)}
              </li>`,
            )}</ul>`
      }
      <h2>Coverage</h2>
      ${
        report.coverage.length === 0
          ? html`<p class="empty">No operation called yet.</p>`
          : html`<div class="scroll"><table class="journal coverage">
            <thead><tr><th>operation</th><th>statuses met</th><th>never met</th><th>scenarios met</th><th>scenarios never met</th></tr></thead>
            <tbody>${report.coverage.map(
              (c) => html`<tr data-operation=${c.operationId}>
                <td><code>${c.operationId}</code><br /><span class="muted">${c.method} ${c.path}</span></td>
                <td>${c.met.map((m) => html`<button class="link" title=${`first met by request ${m.request}`} onClick=${() => open(m.request)}>${m.status}</button> `)}</td>
                <td class="muted">${c.unmet.join(' ') || '–'}</td>
                <td>${c.scenarios.met.map((s) => html`<span class="fault">${s.name}</span>`)}</td>
                <td class="muted">${c.scenarios.unmet.join(', ') || '–'}</td>
              </tr>`,
            )}</tbody>
          </table></div>`
      }
    </section>
  `
}
