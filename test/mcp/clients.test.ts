import { execFile } from 'node:child_process'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_TOOLS, noMcpTools } from '../support/needs.js'
import { runtimes } from '../support/runtimes.js'
import { useSandbox } from '../support/sandbox.js'

const run = promisify(execFile)
const bin = (name: string) => `${MCP_TOOLS}/node_modules/.bin/${name}`

/**
 * Clients nobody here wrote, against the sandbox over HTTP (the Node server and workerd): the
 * MCP conformance suite's server checks that apply to a server whose tools are its own, and
 * the MCP Inspector's CLI mode. Both need Node 22.19+: CI's second leg installs them
 * (.ci/run); elsewhere the suite is skipped and listed.
 */
describe.skipIf(noMcpTools()).each(runtimes.filter((r) => r.http))('MCP clients of others through $name', (runtime) => {
  const rt = useSandbox(runtime)
  let world: string
  let token: string
  let proxy: Server
  let proxied: string

  beforeAll(async () => {
    const s = await rt.isolated()
    world = s.id!
    token = (await s.control.post('/tokens/agent', { email: 'admin@fleet.test' })).body.token
    // The conformance suite sends no headers of ours: a proxy adds the token and the world, as a configured client would.
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-sandbox-id': world }
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value
      const answer = await rt.fetch(req.url!, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      })
      res.writeHead(answer.status, Object.fromEntries(answer.headers))
      res.end(Buffer.from(await answer.arrayBuffer()))
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`
  })
  afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())))

  // The suite's other server scenarios call tools of its reference server (test_simple_text, ...), which this server does not have.
  it.each(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])(
    'passes the conformance scenario %s',
    async (scenario) => {
      const { stdout } = await run(bin('conformance'), ['server', '--url', proxied, '--scenario', scenario], {
        encoding: 'utf8',
      }).catch((error) => error as { stdout: string })
      expect(stdout).toMatch(/Passed: (\d+)\/\1, 0 failed/)
    },
  )

  const inspector = (...args: string[]) =>
    run(
      bin('inspector'),
      [
        '--cli',
        `${rt.url}/mcp`,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${token}`,
        '--header',
        `x-sandbox-id: ${world}`,
        ...args,
      ],
      { encoding: 'utf8' },
    )

  it("lists the tools in the Inspector's CLI, portable schemas (--strict), and calls a write tool whose change HTTP then shows", async () => {
    const listed = await inspector('--method', 'tools/list', '--strict')
    const { tools } = JSON.parse(listed.stdout) as { tools: { name: string }[] }
    expect(tools.map((t) => t.name)).toContain('updateNotificationStatus')

    const s = rt.client(token, world)
    const first = (await s.get('/api/notifications?limit=1')).body.data.notifications[0]
    const next = first.status === 'reviewed' ? 'unreviewed' : 'reviewed'
    const called = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'updateNotificationStatus',
      '--tool-arg',
      `id=${first.id}`,
      `body={"status":"${next}"}`,
    )
    const result = JSON.parse(called.stdout) as { isError?: boolean; structuredContent: { status: number } }
    expect([result.isError ?? false, result.structuredContent.status]).toEqual([false, 200])
    expect((await s.get('/api/notifications?limit=1')).body.data.notifications[0].status).toBe(next)
  })
})
