import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { DriftReport } from '../core/bridge/drift.js'
import type { ViewProps } from './types.js'

const detail = (value: unknown) => (value === undefined ? '' : JSON.stringify(value))

/**
 * Where the upstream differs from the sandbox (`GET /__sandbox/drift`): each operation's latest
 * check, newest first, read again on every `event: drift`; a walk on demand (`POST /__sandbox/drift`).
 */
export function Drift({ api, fail, version, checks }: ViewProps & { checks: number }) {
  const [report, setReport] = useState<DriftReport | undefined>()
  const [walking, setWalking] = useState(false)
  useEffect(() => {
    api.call<DriftReport>('GET', '/drift').then(setReport, fail)
  }, [api, version, checks])
  const walk = () => {
    setWalking(true)
    api
      .call<DriftReport>('POST', '/drift', {})
      .then(() => api.call<DriftReport>('GET', '/drift'))
      .then(setReport, fail)
      .finally(() => setWalking(false))
  }
  if (!report) return html`<p class="empty">Loading…</p>`
  if (!report.upstream)
    return html`<p class="empty">No upstream: start the sandbox with <code>--upstream URL</code> (docs/bridge.md) to see where a real backend differs.</p>`
  const newest = [...report.operations].reverse()
  const s = report.summary
  return html`
    <section class="drift">
      <div class="row">
        <span>Upstream <b>${report.upstream}</b> · checked ${report.checkedAt ?? 'never'} · ${s.ok} ok, ${s.drift} drift, ${s.unreachable} unreachable, ${s.skipped} skipped</span>
        <button onClick=${walk} disabled=${walking}>${walking ? 'Walking…' : 'Walk every GET now'}</button>
      </div>
      ${
        newest.length === 0
          ? html`<p class="empty">Nothing checked yet. Answers that pass through to the upstream are checked as they arrive; or walk every GET now.</p>`
          : html`<table class="journal drift">
            <thead><tr><th>operation</th><th>status</th><th>http</th><th>findings</th></tr></thead>
            <tbody>
              ${newest.map(
                (op) => html`<tr data-operation=${op.operation} class=${op.status}>
                <td><code>${op.operation}</code>${op.path !== op.operation.slice(op.operation.indexOf(' ') + 1) ? html`<br /><span class="muted">${op.path}</span>` : ''}</td>
                <td>${op.status}</td>
                <td>${op.httpStatus ?? '–'}</td>
                <td>${op.reason ? html`<span class="muted">${op.reason}</span>` : ''}
                  <ul>${op.findings.map((f) => html`<li><b>${f.kind}</b> <code>${f.pointer || '(body)'}</code>${f.expected !== undefined ? html` expected <code>${detail(f.expected)}</code>` : ''}${f.actual !== undefined ? html` got <code>${detail(f.actual)}</code>` : ''}</li>`)}</ul>
                </td>
              </tr>`,
              )}
            </tbody>
          </table>`
      }
    </section>
  `
}
