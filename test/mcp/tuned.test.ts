import { describe, expect, it } from 'vitest'
import { createSandboxApp } from '../../src/apps/page-app.js'
import { mcpMount } from '../../src/mcp/mount.js'
import { NOW } from '../support/runtimes.js'

/**
 * The MCP server's tuned path (a plain 2025-era `tools/call` answered without making an SDK
 * server for it: src/mcp/server.ts) against the SDK answering every message: the same calls,
 * in lockstep on two apps of one seed, answer the same status, type and bytes, and leave the
 * same journal.
 */
describe('the tuned tool call beside the SDK', () => {
  const start = async (plain: boolean) => {
    const app = createSandboxApp({ seed: 1, now: NOW, size: 'small', mounts: [mcpMount({ plain })] })
    await app.ready()
    const minted = await app.fetch(
      new Request('http://sandbox.test/__sandbox/tokens/agent', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'operator@fleet.test' }),
      }),
      { via: 'msw' },
    )
    const { token } = (await minted.json()) as { token: string }
    return { app, token }
  }

  it('answers every call as the SDK does', async () => {
    const tuned = await start(false)
    const plain = await start(true)
    const firstPage = async (side: typeof tuned) =>
      JSON.parse(
        await (
          await side.app.fetch(
            new Request('http://sandbox.test/api/notifications?limit=2', {
              headers: { authorization: `Bearer ${side.token}` },
            }),
            { via: 'msw' },
          )
        ).text(),
      ).data.notifications.map((n: { id: string }) => n.id)
    const ids = await firstPage(tuned)
    expect(await firstPage(plain)).toEqual(ids)
    const calls: [unknown, Record<string, string>?][] = [
      [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listNotifications', arguments: { limit: 3 } } }],
      [{ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'getMe' } }],
      [
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'updateNotificationStatus', arguments: { id: ids[0], body: { status: 'reviewed' } } },
        },
      ],
      [
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'updateNotificationStatus', arguments: { body: { status: 'reviewed' } } },
        },
      ],
      [
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'updateNotificationStatus', arguments: { id: 'zz', body: { status: 'nope' } } },
        },
      ],
      [
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'listNotifications', arguments: { colour: 'red' } },
        },
      ],
      [
        {
          jsonrpc: '2.0',
          id: 6,
          method: 'tools/call',
          params: { name: 'getServiceProvider', arguments: { id: 'nobody' } },
        },
      ],
      [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'deleteLayer', arguments: { id: 'x' } } }],
      [
        { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'getMe', arguments: {} } },
        { 'x-sandbox-scenario': 'rate-limited' },
      ],
      [{ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'noSuchTool', arguments: {} } }],
      [{ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'getMe', arguments: [] } }],
      [
        { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'getMe', arguments: {} } },
        { 'mcp-protocol-version': '1999-01-01' },
      ],
      [
        { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'getMe', arguments: {} } },
        { accept: 'application/json' },
      ],
    ]
    const answers = async (
      side: { app: typeof tuned.app; token: string },
      body: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await side.app.fetch(
        new Request('http://sandbox.test/mcp', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${side.token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
            ...headers,
          },
          body: JSON.stringify(body),
        }),
        { via: 'msw' },
      )
      // The sandbox clock runs in each app: instants differ by the time between the two calls.
      const text = (await res.text()).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<instant>')
      // The text itself, not its parsed value: the tuned path writes a success's envelope as bytes around its request's body (src/mcp/json-bytes.ts).
      return { status: res.status, type: res.headers.get('content-type'), body: JSON.parse(text), text }
    }
    for (const [body, headers] of calls) {
      const [a, b] = [await answers(tuned, body, headers), await answers(plain, body, headers)]
      expect(a, JSON.stringify(body)).toEqual(b)
    }
    const journal = async (side: typeof tuned) =>
      (
        (await (
          await side.app.fetch(new Request('http://sandbox.test/__sandbox/requests'), { via: 'msw' })
        ).json()) as { requests: { method: string; path: string; status: number; via?: string; tool?: string }[] }
      ).requests.map(({ method, path, status, via, tool }) => ({ method, path, status, via, tool }))
    const kept = await journal(tuned)
    expect(kept.filter((e) => e.via === 'mcp').length).toBeGreaterThan(5)
    expect(kept).toEqual(await journal(plain))
  })
})
