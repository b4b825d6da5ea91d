import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { SignJWT } from 'jose'
import { describe, expect, it } from 'vitest'
import { keyBytes } from '../../src/core/auth/tokens.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { expectEach } from '../support/each.js'

type Sandboxed = Awaited<ReturnType<ReturnType<typeof useSandbox>['isolated']>>
type Structured = { status: number; body: any; retryAfter?: string; faults?: string[] }

/**
 * The MCP server at /mcp (docs/agents.md), through the official SDK's client on every runtime:
 * its tools are the route table's operations, each call an HTTP request made with the agent
 * token in the caller's world.
 */
describe.each(runtimes)('the MCP server through $name', (runtime) => {
  const rt = useSandbox(runtime)

  const agentToken = async (s: Sandboxed, email = 'admin@fleet.test') =>
    (await s.control.post('/tokens/agent', { email })).body.token as string

  /** The SDK's client over the runtime's own fetch (kept-alive connections over HTTP, msw/node in process). */
  async function connect(s: Sandboxed, token: string, headers: Record<string, string> = {}) {
    const client = new Client({ name: 'fleet-sandbox-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL('http://sandbox.test/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${token}`, 'x-sandbox-id': s.id!, ...headers } },
      fetch: (url, init) => rt.fetch(new URL(url).pathname, init),
    })
    await client.connect(transport)
    return client
  }

  const mcpPost = (body: string, headers: Record<string, string>) =>
    rt.fetch('/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body,
    })

  it('lists the API operations as tools, marked assumed, with input schemas from the route table', async () => {
    const s = await rt.isolated()
    const client = await connect(s, await agentToken(s))
    const { tools } = await client.listTools()
    const names = tools.map((t) => t.name)
    expect(names).toEqual(
      expect.arrayContaining(['listNotifications', 'updateNotificationStatus', 'getMe', 'publishInvoice']),
    )
    // Not the control API, nor sign-in, nor the portal's.
    expect(names.filter((n) => n.startsWith('sandbox') || n === 'signInEmail' || n.startsWith('portal'))).toEqual([])
    expectEach(
      tools,
      (t) => t.description!.includes('Assumed: the spec shows no MCP tools') && t.inputSchema.type === 'object',
    )
    const update = tools.find((t) => t.name === 'updateNotificationStatus')!
    expect(update.inputSchema.required).toEqual(['id', 'body'])
    expect((update.inputSchema.properties as any).body.properties.status.enum).toContain('reviewed')
    await client.close()
  })

  it("calls a read tool and a write tool in the caller's world: the write is seen over HTTP, the journal marks both via mcp", async () => {
    const s = await rt.isolated()
    const token = await agentToken(s)
    const client = await connect(s, token)
    const read = await client.callTool({ name: 'listNotifications', arguments: { limit: 5 } })
    expect(read.isError).toBeFalsy()
    expect((read.structuredContent as Structured).status).toBe(200)
    // The body as the API sent it, in the text content.
    const listed = JSON.parse((read.content as { text: string }[])[0].text)
    const overHttp = await s.as(token).get('/api/notifications?limit=5')
    expect(listed).toEqual(overHttp.body)
    const first = listed.data.notifications[0]
    const next = first.status === 'reviewed' ? 'unreviewed' : 'reviewed'

    const write = await client.callTool({
      name: 'updateNotificationStatus',
      arguments: { id: first.id, body: { status: next } },
    })
    expect(write.isError).toBeFalsy()
    expect((write.structuredContent as Structured).status).toBe(200)
    const after = await s.as(token).get('/api/notifications?limit=5')
    const seen = (after.body.data.notifications ?? after.body.data).find((n: { id: string }) => n.id === first.id)
    expect(seen.status).toBe(next)

    const journal = (await s.control.get('/requests')).body.requests as {
      method: string
      path: string
      via?: string
      tool?: string
    }[]
    const viaMcp = journal.filter((e) => e.via === 'mcp')
    expect(viaMcp.map((e) => [e.method, e.path.split('?')[0], e.tool])).toEqual([
      ['GET', '/api/notifications', 'listNotifications'],
      ['PATCH', `/api/notifications/${first.id}`, 'updateNotificationStatus'],
    ])
    // The plain HTTP requests carry no mark, and /mcp itself is not journaled.
    expect(journal.filter((e) => e.path === '/mcp')).toEqual([])
    await client.close()
  })

  it('answers an API error as a tool result with isError, its status and body; the permissions of the token apply', async () => {
    const s = await rt.isolated()
    const client = await connect(s, await agentToken(s))
    const missing = await client.callTool({
      name: 'updateNotificationStatus',
      arguments: { id: 'a'.repeat(24), body: { status: 'reviewed' } },
    })
    expect(missing.isError).toBe(true)
    expect((missing.structuredContent as Structured).status).toBe(404)
    expect(JSON.stringify((missing.structuredContent as Structured).body)).toContain('no notification with id')
    expect((missing.content as { text: string }[])[0].text).toMatch(/^HTTP 404: /)
    // The route's own validation names the field.
    const invalid = await client.callTool({
      name: 'updateNotificationStatus',
      arguments: { id: 'a'.repeat(24), body: { status: 'nope' } },
    })
    expect(invalid.isError).toBe(true)
    expect((invalid.structuredContent as Structured).status).toBe(400)
    expect(JSON.stringify((invalid.structuredContent as Structured).body)).toContain('status')
    await client.close()

    const viewer = await connect(s, await agentToken(s, 'viewer@fleet.test'))
    const refused = await viewer.callTool({
      name: 'updateNotificationStatus',
      arguments: { id: 'a'.repeat(24), body: { status: 'reviewed' } },
    })
    expect(refused.isError).toBe(true)
    expect((refused.structuredContent as Structured).status).toBe(403)
    await viewer.close()
  })

  it('reaches tool calls with rate-limited as tool errors carrying Retry-After, then lets them through', async () => {
    const s = await rt.isolated()
    await s.scenarios([{ name: 'rate-limited', options: { failures: 2, retryAfter: 7 } }])
    const client = await connect(s, await agentToken(s))
    const results = []
    for (let i = 0; i < 3; i++) results.push(await client.callTool({ name: 'getMe', arguments: {} }))
    expect(
      results.map((r) => [
        r.isError ?? false,
        (r.structuredContent as Structured).status,
        (r.structuredContent as Structured).retryAfter,
      ]),
    ).toEqual([
      [true, 429, '7'],
      [true, 429, '7'],
      [false, 200, undefined],
    ])
    expect((results[0].content as { text: string }[])[0].text).toContain('Retry after 7 s (Retry-After)')
    expect((results[0].structuredContent as Structured).faults).toEqual(['rate-limited'])
    await client.close()
  })

  it('answers a request an override cut ({"error": "network"}) as a tool error with status 0, as docs/agents.md says', async () => {
    const s = await rt.isolated()
    expect(
      (
        await s.control.post('/overrides', {
          match: { method: 'GET', path: '/api/layers' },
          respond: { error: 'network' },
        })
      ).status,
    ).toBe(201)
    const client = await connect(s, await agentToken(s))
    const cut = await client.callTool({ name: 'listLayers', arguments: {} })
    expect(cut.isError).toBe(true)
    expect(cut.structuredContent).toMatchObject({ status: 0 })
    expect((cut.content as { text: string }[])[0].text).toMatch(/connection was cut/)
    await client.close()
  })

  it("refuses /mcp without a valid agent token: 401 naming the resource metadata, 403 insufficient_scope, 401 for another world's token", async () => {
    const s = await rt.isolated()
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    })
    const none = await mcpPost(init, { 'x-sandbox-id': s.id! })
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    )

    // A session is a valid token of the world, without the scope.
    const session = await mcpPost(init, { 'x-sandbox-id': s.id!, authorization: `Bearer ${s.token}` })
    expect(session.status).toBe(403)
    expect(session.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="service:api"')

    // An agent JWT of this world with another scope, signed with the world's key.
    const { signingKey } = (await s.control.get('/snapshot')).body
    const me = (await s.get('/api/auth/users/me')).body
    const userId = me.id ?? me.data?.id ?? me.user?.id
    const nowS = Math.floor(Date.parse((await s.control.get('/clock')).body.now) / 1000)
    const narrow = await new SignJWT({ kind: 'agent', clientId: 'x', scope: 'profile:read' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('fleet-sandbox')
      .setSubject(String(userId))
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + 600)
      .sign(keyBytes(signingKey))
    const scoped = await mcpPost(init, { 'x-sandbox-id': s.id!, authorization: `Bearer ${narrow}` })
    expect(scoped.status).toBe(403)
    expect(scoped.headers.get('www-authenticate')).toContain('error="insufficient_scope"')

    const other = await rt.isolated()
    const foreign = await mcpPost(init, { 'x-sandbox-id': other.id!, authorization: `Bearer ${await agentToken(s)}` })
    expect(foreign.status).toBe(401)
    expect(foreign.headers.get('www-authenticate')).toMatch(/resource_metadata=".*", error="invalid_token"$/)
  })

  it('answers malformed JSON-RPC, an unknown tool and bad arguments precisely, and changes nothing', async () => {
    const s = await rt.isolated()
    const token = await agentToken(s)
    const before = (await s.control.get('/requests')).body.requests.length
    const auth = { 'x-sandbox-id': s.id!, authorization: `Bearer ${token}` }

    const parse = await mcpPost('{"jsonrpc": "2.0", "id": 1, "method": ', auth)
    expect(parse.status).toBe(400)
    expect((await parse.json()).error.code).toBe(-32700)
    const shape = await mcpPost(JSON.stringify({ hello: 'world' }), auth)
    expect(shape.status).toBe(400)
    expect((await shape.json()).error.code).toBe(-32600)

    const client = await connect(s, token)
    await expect(client.callTool({ name: 'dropTheDatabase', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: dropTheDatabase'),
    })
    const unknownArgument = await client.callTool({ name: 'listNotifications', arguments: { colour: 'red' } })
    expect(unknownArgument.isError).toBe(true)
    expect((unknownArgument.content as { text: string }[])[0].text).toContain(
      '"colour" is not an argument of listNotifications',
    )
    const noId = await client.callTool({
      name: 'updateNotificationStatus',
      arguments: { body: { status: 'reviewed' } },
    })
    expect(noId.isError).toBe(true)
    expect((noId.content as { text: string }[])[0].text).toBe(
      'id: is required (a path parameter of updateNotificationStatus)',
    )
    for (const id of ['..', '.']) {
      const dots = await client.callTool({
        name: 'updateNotificationStatus',
        arguments: { id, body: { status: 'reviewed' } },
      })
      expect((dots.content as { text: string }[])[0].text).toBe(
        `id: must not be "." or ".." (a path parameter: the URL would resolve it away)`,
      )
    }
    const objectId = await client.callTool({
      name: 'updateNotificationStatus',
      arguments: { id: { $ne: 1 }, body: { status: 'reviewed' } },
    })
    expect((objectId.structuredContent as Structured).status).toBe(400)
    await client.close()

    // None of it reached the API: the journal has only what the test itself sent.
    const journal = (await s.control.get('/requests')).body.requests as { via?: string }[]
    expect(journal.length).toBe(before)
  })

  it('answers GET and DELETE /mcp 405: the server is stateless, it holds no stream or session', async () => {
    const s = await rt.isolated()
    const auth = {
      'x-sandbox-id': s.id!,
      authorization: `Bearer ${await agentToken(s)}`,
      accept: 'text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    }
    expect((await rt.fetch('/mcp', { headers: auth })).status).toBe(405)
    expect((await rt.fetch('/mcp', { method: 'DELETE', headers: auth })).status).toBe(405)
  })
})

describe('the MCP server of fleet-sandbox/node (setupSandboxServer)', () => {
  it('claims /mcp on its origin: the SDK client over the global fetch lists the tools and calls one', async () => {
    const { setupSandboxServer } = await import('../../src/adapters/node/index.js')
    const sandbox = setupSandboxServer({ origins: ['http://api.test'] })
    await sandbox.listen()
    try {
      const minted = await fetch('http://api.test/__sandbox/tokens/agent', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'operator@fleet.test' }),
      })
      const { token } = (await minted.json()) as { token: string }
      const client = new Client({ name: 'fleet-sandbox-test', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://api.test/mcp'), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      )
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('getMe')
      const me = await client.callTool({ name: 'getMe', arguments: {} })
      expect(JSON.parse((me.content as { text: string }[])[0].text).data.user.email).toBe('operator@fleet.test')
      expect(
        sandbox
          .sandbox()
          .journal.list()
          .filter((e) => e.via === 'mcp')
          .map((e) => e.tool),
      ).toEqual(['getMe'])
      await client.close()
    } finally {
      sandbox.close()
    }
  })
})
