import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { describe, expect, it } from 'vitest'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

/** The MCP server's `conductReport` tool: an agent reads the conduct of its world, on every runtime. */
describe.each(runtimes)('the MCP conduct tool through $name', (runtime) => {
  const rt = useSandbox(runtime)

  it("answers its world's findings and coverage; an argument is refused", async () => {
    const s = await rt.isolated('admin@fleet.test', 'mcp-conduct')
    for (let i = 0; i < 2; i++) expect((await s.get('/api/v1/technician/get/nope')).status).toBe(404)
    const token = (await s.control.post('/tokens/agent', { email: 'admin@fleet.test' })).body.token as string
    const client = new Client({ name: 'fleet-sandbox-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://sandbox.test/mcp'), {
        requestInit: { headers: { authorization: `Bearer ${token}`, 'x-sandbox-id': s.id! } },
        fetch: (url, init) => rt.fetch(new URL(url).pathname, init),
      }),
    )
    try {
      const listed = (await client.listTools()).tools.find((t) => t.name === 'conductReport')!
      expect(listed.annotations?.readOnlyHint).toBe(true)
      const result = (await client.callTool({ name: 'conductReport', arguments: {} })) as {
        structuredContent: { findings: { rule: string; requests: number[] }[]; coverage: { operationId: string }[] }
        isError?: boolean
      }
      expect(result.isError).toBeUndefined()
      expect(result.structuredContent.findings.map((f) => f.rule)).toEqual(['retried-refusal'])
      expect(result.structuredContent.coverage.map((c) => c.operationId)).toEqual(['signInEmail', 'getTechnician'])
      const bad = (await client.callTool({ name: 'conductReport', arguments: { world: 'x' } })) as {
        isError?: boolean
        content: { text: string }[]
      }
      expect(bad.isError).toBe(true)
      expect(bad.content[0].text).toBe('arguments: conductReport takes none')
    } finally {
      await client.close()
    }
  })
})
