import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { noPactTools } from '../support/needs.js'
import { type Running, runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'
import { compare, verifyPact } from './pact-tools.js'

const server = runtimes.find((r) => r.name.startsWith('hono'))!

/**
 * The contract checked by the tools that consume it: the official Pact verifier against a fresh
 * sandbox given only its URL and the state-change URL, and PactFlow's comparator against the
 * served OpenAPI document. Both need Node 22+ (CI's second leg installs them, .ci/run).
 */
describe.skipIf(noPactTools())('a pact of MCP tool calls, verified by the Pact tools', () => {
  const rt = useSandbox(server)
  let fresh: Running
  let dir: string
  let pact: any

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-pact-'))
    // A world whose only traffic is the tool calls (the agent token comes from the control API).
    const s = rt.fresh('mcp-pact', null)
    const token = (await s.control.post('/tokens/agent', { email: 'admin@fleet.test' })).body.token as string
    const mcp = new Client({ name: 'fleet-sandbox-pact-test', version: '1.0.0' })
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}`, 'x-sandbox-id': s.id! } },
      }),
    )
    const listed = await mcp.callTool({ name: 'listNotifications', arguments: { limit: 3, status: 'unreviewed' } })
    const first = JSON.parse((listed.content as { text: string }[])[0].text).data.notifications[0]
    await mcp.callTool({ name: 'updateNotificationStatus', arguments: { id: first.id, body: { status: 'reviewed' } } })
    await mcp.callTool({ name: 'getMe', arguments: {} })
    await mcp.callTool({ name: 'listLayers', arguments: {} })
    await mcp.callTool({
      name: 'updateNotificationStatus',
      arguments: { id: 'a'.repeat(24), body: { status: 'reviewed' } },
    })
    await mcp.close()
    const res = await s.control.get('/contracts/pact')
    expect(res.status).toBe(200)
    pact = res.body
    // A sandbox nobody used: the verifier reaches it by URL alone.
    fresh = await server.start()
  })
  afterAll(async () => {
    await fresh?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('the file holds the tool calls, each its operation, and no credential', () => {
    expect(pact.interactions.map((i: { description: string }) => i.description).sort()).toEqual([
      'getMe, no scenario, status 200',
      'listLayers, no scenario, status 200',
      'listNotifications, no scenario, status 200',
      'updateNotificationStatus, no scenario, status 200',
      'updateNotificationStatus, no scenario, status 404',
    ])
    expect(JSON.stringify(pact)).not.toMatch(/eyJ[\w-]+\.[\w-]+\./)
  })

  it('the official verifier passes it against a fresh sandbox, given its URL and the state-change URL', async () => {
    const file = join(dir, 'fleet-web-fleet-backoffice.json')
    writeFileSync(file, JSON.stringify(pact))
    const verified = await verifyPact(file, fresh.url!)
    expect(verified.ok, verified.output).toBe(true)
  })

  it('the same file with one expectation changed fails', async () => {
    const changed = structuredClone(pact)
    const me = changed.interactions.find((i: { description: string }) => i.description.startsWith('getMe'))
    me.response.status = 201
    const file = join(dir, 'changed.json')
    writeFileSync(file, JSON.stringify(changed))
    const verified = await verifyPact(file, fresh.url!)
    expect(verified.ok, verified.output).toBe(false)
    expect(verified.output).toMatch(/getMe/)
  })

  it('openapi-pact-comparator finds it compatible with the served OpenAPI document', async () => {
    const doc = await (await fresh.fetch('/__sandbox/openapi.json')).json()
    const results = await compare(doc, pact)
    expect(
      results.filter((r) => r.type === 'error'),
      JSON.stringify(results, null, 1),
    ).toEqual([])
  })
})
