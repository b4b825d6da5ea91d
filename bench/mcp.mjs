import { load } from './load.mjs'
import { startSandbox } from './processes.mjs'

/** The list both sides ask for, and the write both make (docs/agents.md: a tool call is this request with the agent token). */
const LIMIT = 20

/**
 * A tool call of the MCP server (`POST /mcp`, `tools/call`, as the SDK's client sends it on the
 * 2025-11-25 protocol) beside the HTTP request it stands for, on one Node server, one after the
 * other in one run: requests a second and the server's CPU per request of each. Both sides run
 * with the same settings (connections, kept alive by autocannon, the same warm-up and length),
 * the same token, the same query and the same write. The claim (issue 32): a tool call costs at
 * most twice the request.
 */
export async function measureMcp({ settings, log }) {
  const sandbox = await startSandbox(['--size', 'small'])
  try {
    const minted = await fetch(`${sandbox.url}/__sandbox/tokens/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@fleet.test' }),
    })
    const { token } = await minted.json()
    const auth = { authorization: `Bearer ${token}` }
    const page = await (await fetch(`${sandbox.url}/api/notifications?limit=${LIMIT}`, { headers: auth })).json()
    const id = page.data.notifications[0].id
    const mcpHeaders = {
      ...auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    }
    const call = (name, args) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
    const run = (extra) =>
      load({
        url: sandbox.url,
        pid: sandbox.pid,
        connections: settings.connections,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        ...extra,
      })
    const cases = [
      [
        'read: list notifications',
        { path: `/api/notifications?limit=${LIMIT}`, headers: auth },
        { path: '/mcp', method: 'POST', headers: mcpHeaders, body: call('listNotifications', { limit: LIMIT }) },
      ],
      [
        'write: review a notification',
        {
          path: `/api/notifications/${id}`,
          method: 'PATCH',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ status: 'reviewed' }),
        },
        {
          path: '/mcp',
          method: 'POST',
          headers: mcpHeaders,
          body: call('updateNotificationStatus', { id, body: { status: 'reviewed' } }),
        },
      ],
    ]
    const out = []
    for (const [name, http, mcp] of cases) {
      log(`mcp: ${name} over HTTP`)
      const plain = await run(http)
      log(`mcp: ${name} as a tool call`)
      const tool = await run(mcp)
      out.push({
        name,
        http: plain,
        mcp: tool,
        cpuRatio:
          plain.cpuUsPerRequest && tool.cpuUsPerRequest
            ? Number((tool.cpuUsPerRequest / plain.cpuUsPerRequest).toFixed(2))
            : null,
        rpsRatio: tool.rps ? Number((plain.rps / tool.rps).toFixed(2)) : null,
      })
    }
    return { cases: out }
  } finally {
    await sandbox.stop()
  }
}
