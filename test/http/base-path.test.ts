import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupSandboxServer } from '../../src/adapters/node/index.js'
import { ADMIN_TOKEN } from '../support/client.js'

// A sandbox served under a base path (an MSW place `https://app.test/backend`): the request is
// split once (origin, base, path, query, sandbox id) and every stage reads that split, so the
// journal, the repro log and a tool call through `/mcp` name the same path.
const BASE = 'https://app.test/backend'
const sandbox = setupSandboxServer({ origins: [BASE], onUnhandledRequest: 'error' })
beforeAll(sandbox.listen)
afterAll(sandbox.close)

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }
const json = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${BASE}${path}`, {
    ...init,
    headers: { ...auth, 'content-type': 'application/json', ...init.headers },
  })
  return { status: res.status, body: await res.json() }
}

describe('under a base path', () => {
  it('the journal and the repro log record the path the route table saw; the URL keeps the base', async () => {
    const list = await json('/api/notifications?limit=1')
    expect(list.status).toBe(200)
    const id = list.body.data.notifications[0].id
    const patched = await json(`/api/notifications/${id}?why=base`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'reviewed' }),
    })
    expect(patched.status).toBe(200)

    const { requests } = (await json('/__sandbox/requests')).body as {
      requests: { id: number; method: string; path: string; query: string; url: string }[]
    }
    const entry = requests.find((r) => r.method === 'PATCH')!
    expect(entry).toMatchObject({ path: `/api/notifications/${id}`, query: '?why=base' })
    expect((await json(`/__sandbox/requests/${entry.id}`)).body.url).toBe(`${BASE}/api/notifications/${id}?why=base`)

    const bundle = (await json('/__sandbox/repro')).body as {
      requests: { method: string; path: string; query: string }[]
    }
    const step = bundle.requests.find((s) => s.method === 'PATCH')!
    expect(`${step.path}${step.query}`).toBe(`${entry.path}${entry.query}`)
  })

  it('claims /mcp under the base as a mount of the app, and its tool calls keep the base', async () => {
    const token = (
      await json('/__sandbox/tokens/agent', { method: 'POST', body: JSON.stringify({ email: 'admin@fleet.test' }) })
    ).body.token as string
    const call = await fetch(`${BASE}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'listNotifications', arguments: { limit: 1 } },
      }),
    })
    expect(call.status).toBe(200)
    expect((await call.json()).result.structuredContent.status).toBe(200)
    const { requests } = (await json('/__sandbox/requests')).body as {
      requests: { id: number; path: string; via?: string }[]
    }
    const viaMcp = requests.filter((r) => r.via === 'mcp')
    expect(viaMcp).toHaveLength(1)
    expect(viaMcp[0].path).toBe('/api/notifications')
    expect((await json(`/__sandbox/requests/${viaMcp[0].id}`)).body.url).toBe(`${BASE}/api/notifications?limit=1`)
  })
})
