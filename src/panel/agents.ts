import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import type { ViewProps } from './types.js'

interface AgentSession {
  id: string
  client: { id: string; name: string | null }
  user: { id: string; email: string | null }
  scope: string
  accessExpiresAt: string
  refreshExpiresAt: string | null
  status: string
  revokedWhy: string | null
}

/** The world's agent sessions (`GET /__sandbox/agents`, docs/agents.md): client, user, scope, expiry, revoked or not. */
export function Agents({ api, version }: ViewProps) {
  const [list, setList] = useState<AgentSession[] | undefined>()
  const [missing, setMissing] = useState(false)
  const refresh = () =>
    api.call<{ sessions: AgentSession[] }>('GET', '/agents').then(
      (r) => setList(r.sessions),
      () => setMissing(true),
    )
  useEffect(() => void refresh(), [api, version])
  if (missing)
    return html`<p class="empty">This runtime serves no agent access (the browser runtime does not): see docs/agents.md.</p>`
  return html`
    <section>
      <div class="row"><span class="muted grow">Agents signed in through OAuth (or <code>POST /__sandbox/tokens/agent</code>), one row per grant.</span><button onClick=${refresh}>Refresh</button></div>
      <table class="agents">
        <thead><tr><th>client</th><th>user</th><th>scope</th><th>access expires</th><th>refresh expires</th><th>status</th></tr></thead>
        <tbody>
          ${(list ?? []).map(
            (s) => html`
            <tr key=${s.id} data-id=${s.id}>
              <td>${s.client.name ?? s.client.id}</td><td>${s.user.email ?? s.user.id}</td><td>${s.scope}</td>
              <td>${s.accessExpiresAt}</td><td>${s.refreshExpiresAt ?? '—'}</td><td title=${s.revokedWhy ?? ''}>${s.status}${s.revokedWhy ? `: ${s.revokedWhy}` : ''}</td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${list && list.length === 0 && html`<p class="empty">No agent has signed in to this world yet.</p>`}
    </section>
  `
}
